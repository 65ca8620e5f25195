import { createOpenAI } from '@ai-sdk/openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromAiSdk } from '../../src/ai-sdk.js';
import { Agent, Crew, Task } from '../../src/index.js';
import { mcpServer } from '../../src/mcp/index.js';
import { type OpenAiServer, startOpenAiServer } from '../fixtures/openai-server.js';
import { childPids, filesystemServer, tempRoot } from './servers.js';

let folder: ReturnType<typeof tempRoot>;
let wire: OpenAiServer | undefined;
beforeEach(() => {
  folder = tempRoot();
});
afterEach(async () => {
  await wire?.close();
  wire = undefined;
  folder.remove();
});

describe('the OpenAI-protocol tool loop calling an MCP tool', () => {
  it('sends the server’s tools over the wire, runs the call on the filesystem server and answers from its result', async () => {
    const path = `${folder.root}/notes.txt`;
    wire = await startOpenAiServer((_, n) =>
      n === 0
        ? { toolCalls: [{ id: 'call_1', name: 'fs_read_text_file', arguments: { path } }] }
        : { content: 'The meeting is on Tuesday.' },
    );
    const provider = createOpenAI({ baseURL: wire.url, apiKey: 'test-key' });
    const fs = mcpServer(filesystemServer(folder.root), { include: ['read_text_file', 'list_directory'] });
    const agent = new Agent({ role: 'Reader', llm: fromAiSdk(provider.chat('gpt-test')), tools: [fs] });
    const task = new Task({ name: 'read', description: 'When is the meeting?', agent });
    const before = childPids().length;
    const out = await new Crew({ agents: [agent], tasks: [task] }).kickoff();

    expect(out.status).toBe('completed');
    expect(out.raw).toBe('The meeting is on Tuesday.');
    const [first, second] = wire.requests;
    // The model was offered the server's tools with the server's JSON Schema.
    expect(first?.tools?.map((t) => t.function.name).sort()).toEqual([
      'fs_list_directory',
      'fs_read_text_file',
    ]);
    const spec = first?.tools?.find((t) => t.function.name === 'fs_read_text_file');
    expect(spec?.function.parameters).toMatchObject({ type: 'object', required: ['path'] });
    // The call reached the server: the file's text came back to the model as the tool message.
    expect(second?.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: 'the meeting is on Tuesday',
    });
    expect(out.nodes[0]?.toolCalls).toEqual([
      { tool: 'fs_read_text_file', args: { path }, result: 'the meeting is on Tuesday' },
    ]);
    // The server's process ended with the run.
    expect(childPids().length).toBe(before);
  }, 60_000);
});
