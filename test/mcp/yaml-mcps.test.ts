import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, InvalidOptionError } from '../../src/index.js';
import { mcpServer } from '../../src/mcp/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { loadCrew } from '../../src/yaml/load-crew.js';
import { callTool, childPids, filesystemServer, tempRoot } from './servers.js';

const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;
const TASKS = yaml('read:', '  description: Read the notes', '  agent: reader');

let folder: ReturnType<typeof tempRoot>;
beforeEach(() => {
  folder = tempRoot();
});
afterEach(() => folder.remove());

/** A scripted reader that reads notes.txt through `tool` and answers from it. */
function reader(tool: string) {
  return createScriptedModel([callTool(tool, { path: `${folder.root}/notes.txt` }), 'Tuesday.']);
}

describe("mcps: in agents.yaml (CrewAI's key)", () => {
  it('grants a server the mcps option names: its tools reach the published filesystem server', async () => {
    const before = childPids().length;
    const llm = reader('fs_read_text_file');
    const agents = yaml('reader:', '  role: Reader', '  mcps: [fs]');
    const fs = mcpServer(filesystemServer(folder.root), { include: ['read_text_file'] });
    const out = await loadCrew({ agents, tasks: TASKS, llm, mcps: { fs } }).kickoff();
    expect(out.status).toBe('completed');
    expect(out.nodes[0]?.toolCalls[0]?.result).toContain('the meeting is on Tuesday');
    expect(llm.calls[0]?.tools.map((t) => t.name)).toEqual(['fs_read_text_file']);
    expect(childPids().length).toBe(before);
  }, 60_000);

  it('grants a server written out in YAML, with its options in snake_case', async () => {
    const { command, args } = filesystemServer(folder.root);
    const llm = reader('notes_read_text_file');
    const agents = yaml(
      'reader:',
      '  role: Reader',
      '  mcps:',
      '    - name: notes',
      `      command: ${JSON.stringify(command)}`,
      `      args: ${JSON.stringify(args)}`,
      '      include: [read_text_file, list_directory]',
      '      connect_timeout_ms: 30000',
    );
    const out = await loadCrew({ agents, tasks: TASKS, llm }).kickoff();
    expect(out.status).toBe('completed');
    expect(out.nodes[0]?.toolCalls[0]?.result).toContain('the meeting is on Tuesday');
    expect(llm.calls[0]?.tools.map((t) => t.name).sort()).toEqual([
      'notes_list_directory',
      'notes_read_text_file',
    ]);
  }, 60_000);

  it('reads a URL entry (CrewAI’s form) as a streamable HTTP server named after its host, #tool granting one tool', () => {
    const agents = yaml('reader:', '  role: Reader', '  mcps: ["https://mcp.example.com/mcp#search"]');
    const crew = loadCrew({ agents, tasks: TASKS, llm: reader('x') });
    const [server] = crew.agents[0]?.toolSources ?? [];
    expect(server).toMatchObject({
      kind: 'tool-source',
      name: 'mcp_example_com',
      spec: { name: 'mcp_example_com', url: 'https://mcp.example.com/mcp' },
      options: { include: ['search'] },
    });
  });

  it('refuses an unknown name, a server without a name or transport, and a bad option, naming the line', () => {
    const load =
      (...lines: string[]) =>
      () =>
        loadCrew({ agents: yaml('reader:', '  role: Reader', ...lines), tasks: TASKS, llm: reader('x') });
    expect(load('  mcps: [fs]')).toThrow(
      'agents.yaml line 3: agent "reader" names MCP server "fs", which the mcps option does not define (none was given); a server may also be an http(s) URL, or written out with a name and a command or url (invalid_config)',
    );
    expect(load('  mcps:', '    - command: node')).toThrow(ConfigError);
    expect(load('  mcps:', '    - command: node')).toThrow(
      /^agents\.yaml line 4: an MCP server of mcps: .*name/,
    );
    expect(load('  mcps:', '    - name: x')).toThrow(
      /^agents\.yaml line 4: an MCP server of mcps: .*command/,
    );
    expect(load('  mcps:', '    - name: x', '      command: node', '      call_timeout_ms: soon')).toThrow(
      /^agents\.yaml line 4: an MCP server of mcps: .*callTimeoutMs/,
    );
    expect(load('  mcps:', '    - name: x', '      command: node', '      max_result_bytes: lots')).toThrow(
      /^agents\.yaml line 4: an MCP server of mcps: .*maxResultBytes/,
    );
    expect(load('  mcps: fs')).toThrow(
      /^agents\.yaml line 3: agent "reader": mcps must be a list of MCP servers/,
    );
    expect(() =>
      loadCrew({
        agents: yaml('reader:', '  role: Reader'),
        tasks: TASKS,
        llm: reader('x'),
        mcps: { fs: {} as never },
      }),
    ).toThrow(InvalidOptionError);
  });
});
