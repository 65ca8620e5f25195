import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, Crew, Task } from '../../src/index.js';
import { mcpServer } from '../../src/mcp/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { callTool, filesystemServer, tempRoot } from './servers.js';

let folder: ReturnType<typeof tempRoot>;
beforeEach(() => {
  folder = tempRoot();
});
afterEach(() => folder.remove());

describe('an MCP filesystem server over stdio', () => {
  it('lists a folder and reads a file through the granted tools', async () => {
    const fs = mcpServer(filesystemServer(folder.root));
    const llm = createScriptedModel([
      callTool('fs_list_directory', { path: folder.root }),
      callTool('fs_read_text_file', { path: `${folder.root}/notes.txt` }),
      'The meeting is on Tuesday.',
    ]);
    const agent = new Agent({ role: 'Reader', llm, tools: [fs] });
    const task = new Task({ name: 'read', description: 'Read the notes', agent });
    const result = await new Crew({ agents: [agent], tasks: [task] }).kickoff();

    expect(result.status).toBe('completed');
    const [listed, read] = result.nodes[0]?.toolCalls ?? [];
    expect(listed?.result).toContain('[FILE] notes.txt');
    expect(listed?.result).toContain('[FILE] todo.md');
    expect(read?.result).toContain('the meeting is on Tuesday');
    // The model saw the results as tool messages, and the server's tools as specs with JSON Schemas.
    const last = llm.calls.at(-1);
    expect(last?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringContaining('Tuesday'),
    });
    const spec = last?.tools.find((t) => t.name === 'fs_read_text_file');
    expect(spec?.parameters).toMatchObject({ type: 'object', required: ['path'] });
  }, 60_000);

  it("returns a path outside the root as the server's error, and the task still completes", async () => {
    const fs = mcpServer(filesystemServer(folder.root));
    const llm = createScriptedModel([
      callTool('fs_read_text_file', { path: '/etc/hostname' }),
      'I may not read it.',
    ]);
    const agent = new Agent({ role: 'Reader', llm, tools: [fs] });
    const task = new Task({ name: 'read', description: 'Read the host name', agent });
    const result = await new Crew({ agents: [agent], tasks: [task] }).kickoff();

    expect(result.status).toBe('completed');
    expect(result.raw).toBe('I may not read it.');
    const call = result.nodes[0]?.toolCalls[0];
    expect(call?.result).toBeUndefined();
    expect(call?.error).toMatch(
      /MCP server "fs" reported an error: Access denied - path outside allowed directories/,
    );
    expect(llm.calls[1]?.messages.at(-1)?.content).toMatch(
      /^Error: MCP server "fs" reported an error: Access denied/,
    );
  }, 60_000);

  it('sends arguments that fail the tool schema back to the model, never to the server', async () => {
    const fs = mcpServer(filesystemServer(folder.root));
    const llm = createScriptedModel([callTool('fs_read_text_file', { file: 'notes.txt' }), 'Sorry.']);
    const agent = new Agent({ role: 'Reader', llm, tools: [fs] });
    const result = await new Crew({
      agents: [agent],
      tasks: [new Task({ description: 'Read', agent })],
    }).kickoff();

    expect(result.status).toBe('completed');
    expect(result.nodes[0]?.toolCalls[0]?.error).toMatch(/^invalid arguments: .*path/);
  }, 60_000);
});
