import { describe, expect, it } from 'vitest';
import { Agent, Crew, InvalidOptionError, Task } from '../../src/index.js';
import { mcpServer } from '../../src/mcp/index.js';
import { grantedName } from '../../src/mcp/names.js';
import { createScriptedModel } from '../../src/testing.js';
import { callTool, everythingServer } from './servers.js';

describe('which MCP tools are granted', () => {
  it('offers the model only the included tools and refuses a call to any other as unknown', async () => {
    const server = mcpServer(everythingServer(), { include: ['echo', 'get-sum'] });
    const llm = createScriptedModel([callTool('everything_get-env', {}), 'done']);
    const agent = new Agent({ role: 'Tester', llm, tools: [server] });
    const result = await new Crew({
      agents: [agent],
      tasks: [new Task({ description: 'Try', agent })],
    }).kickoff();

    expect(llm.calls[0]?.tools.map((t) => t.name).sort()).toEqual(['everything_echo', 'everything_get-sum']);
    expect(result.nodes[0]?.toolCalls[0]?.error).toMatch(/^unknown tool "everything_get-env"/);
  }, 60_000);

  it('leaves excluded tools out, and a task grants a subset under the bare names', async () => {
    const server = mcpServer(everythingServer(), { exclude: ['get-env'], prefix: '' });
    const llm = createScriptedModel([callTool('echo', { message: 'hi' }), 'done', 'done']);
    const agent = new Agent({ role: 'Tester', llm });
    const subset = new Task({ name: 'subset', description: 'Echo', agent, tools: [server.tools(['echo'])] });
    const all = new Task({ name: 'all', description: 'Look', agent, tools: [server] });
    const result = await new Crew({ agents: [agent], tasks: [subset, all] }).kickoff();

    expect(llm.calls[0]?.tools.map((t) => t.name)).toEqual(['echo']);
    expect(result.nodes[0]?.toolCalls[0]?.result).toBe('Echo: hi');
    const offered = llm.calls[2]?.tools.map((t) => t.name) ?? [];
    expect(offered).toContain('get-sum');
    expect(offered).not.toContain('get-env');
  }, 60_000);

  it('refuses a subset the include and exclude rule out, and tool names the server lacks', async () => {
    const server = mcpServer(everythingServer(), { exclude: ['get-env'] });
    expect(() => server.tools(['get-env'])).toThrow(InvalidOptionError);
    const typo = mcpServer(everythingServer(), { include: ['ecko'] });
    const agent = new Agent({ role: 'Tester', llm: createScriptedModel(['done']), tools: [typo] });
    const task = new Task({ description: 'Try', agent, maxRetries: 0 });
    const result = await new Crew({ agents: [agent], tasks: [task] }).kickoff();
    expect(result.status).toBe('failed');
    expect(Object.values(result.failures)[0]).toMatchObject({
      code: 'invalid_option',
      message: expect.stringMatching(/mcpServer "everything": option "include" .*"ecko"/),
    });
  }, 60_000);
});

describe('granted tool names', () => {
  it('keeps valid names and makes odd or long ones valid, short and distinct, the same each time', () => {
    expect(grantedName('fs', 'read_text_file')).toBe('fs_read_text_file');
    expect(grantedName('', 'get-sum')).toBe('get-sum');
    const dotted = grantedName('my server', 'files.read');
    expect(dotted).toMatch(/^my_server_files_read_[0-9a-f]{8}$/);
    expect(grantedName('my server', 'files.read')).toBe(dotted);
    expect(grantedName('my_server', 'files_read')).not.toBe(dotted);
    const long = grantedName('s', 'x'.repeat(100));
    expect(long).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(long).not.toBe(grantedName('s', `${'x'.repeat(99)}y`));
  });
});

describe('mcpServer options', () => {
  it.each([
    [{ name: '', command: 'node' }, {}, 'name'],
    [{ name: 'a' }, {}, 'command'],
    [{ name: 'a', command: 'node', url: 'http://x' }, {}, 'command'],
    [{ name: 'a', url: 'not a url' }, {}, 'url'],
    [{ name: 'a', command: 'node', args: 'x' }, {}, 'args'],
    [{ name: 'a', command: 'node' }, { connectTimeoutMs: 0 }, 'connectTimeoutMs'],
    [{ name: 'a', command: 'node' }, { callTimeoutMs: -1 }, 'callTimeoutMs'],
    [{ name: 'a', command: 'node' }, { include: 'echo' }, 'include'],
    [{ name: 'a', command: 'node' }, { prefix: 3 }, 'prefix'],
    [{ name: 'a', command: 'node' }, { timeout: 3 }, 'timeout'],
  ])('refuses %j %j naming option %s', (spec, options, option) => {
    const make = () => mcpServer(spec as never, options as never);
    expect(make).toThrow(InvalidOptionError);
    try {
      make();
    } catch (error) {
      expect((error as InvalidOptionError).details.option).toBe(option);
    }
  });
});
