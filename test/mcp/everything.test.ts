import { describe, expect, it } from 'vitest';
import { Agent, Crew, Task } from '../../src/index.js';
import { mcpServer } from '../../src/mcp/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { callTool, everythingServer } from './servers.js';

/** Runs one task whose agent calls the everything server's tools as `calls` say, then answers 'done'. */
async function runCalls(...calls: ReturnType<typeof callTool>[]) {
  const server = mcpServer(everythingServer(), { prefix: 'ev' });
  const llm = createScriptedModel([...calls, 'done']);
  const agent = new Agent({ role: 'Tester', llm, tools: [server] });
  const result = await new Crew({
    agents: [agent],
    tasks: [new Task({ description: 'Try the tools', agent })],
  }).kickoff();
  expect(result.status).toBe('completed');
  return result.nodes[0]?.toolCalls ?? [];
}

describe('results of the MCP everything server as observations', () => {
  it('gives structured content as JSON, once', async () => {
    const [call] = await runCalls(callTool('ev_get-structured-content', { location: 'Chicago' }));
    const parsed = JSON.parse(call?.result ?? '') as Record<string, unknown>;
    expect(parsed).toEqual({
      temperature: expect.any(Number),
      conditions: expect.any(String),
      humidity: expect.any(Number),
    });
  }, 60_000);

  it("reports an error result as the server's error, an observation the task goes on after", async () => {
    const [call] = await runCalls(
      callTool('ev_gzip-file-as-resource', { name: 'x.gz', data: 'http://127.0.0.1:1/nothing' }),
    );
    expect(call?.error).toBe('MCP server "everything" reported an error: fetch failed');
  }, 60_000);

  it('describes an image by its type and size, and resource links by name and URI', async () => {
    const [image, links, reference] = await runCalls(
      callTool('ev_get-tiny-image', {}, 'a'),
      callTool('ev_get-resource-links', { count: 2 }, 'b'),
      callTool('ev_get-resource-reference', { resourceType: 'Text', resourceId: 1 }, 'c'),
    );
    expect(image?.result).toMatch(/\[image image\/png, \d+ bytes\]/);
    expect(image?.result).not.toMatch(/iVBOR/); // never the base64 data itself
    expect(links?.result).toContain('(demo://resource/dynamic/');
    expect(links?.result).toMatch(/Resource 1 \(demo:\/\/resource\/dynamic\/\w+\/1\)/);
    expect(reference?.result).toContain('Resource 1: This is a plaintext resource');
  }, 60_000);

  it('checks arguments against the tool schema before the call', async () => {
    const [call] = await runCalls(callTool('ev_get-sum', { a: 'one', b: 2 }));
    expect(call?.error).toMatch(/^invalid arguments: .*a/);
    expect(call?.error).not.toMatch(/MCP error/);
  }, 60_000);
});
