import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Crew, createFlow, MemoryStore, or, Task } from '../../src/index.js';
import { createMcpServer, type McpServeOptions } from '../../src/mcp/serve.js';
import { createScriptedModel } from '../../src/testing.js';

const echo = createScriptedModel((request) => {
  const task = request.prompt.split('\nTask: ')[1]?.split('\n')[0] ?? '';
  return `${request.agent}: ${task}`;
});

function researchCrew(): Crew {
  const researcher = new Agent({ role: 'Researcher', goal: 'find facts about {topic}', llm: echo });
  const writer = new Agent({ role: 'Writer', goal: 'write', llm: echo });
  return new Crew({
    name: 'research',
    goal: 'A short article about a topic',
    tasks: [
      new Task({ name: 'research', description: 'research {topic}', agent: researcher }),
      new Task({ name: 'write', description: 'write about {topic} for {audience}', agent: writer }),
      new Task({ name: 'edit', description: 'edit the draft', agent: writer }),
    ],
  });
}

const refunds = () =>
  createFlow({ name: 'refunds', initialState: { amount: 0, paid: false } })
    .start('check', ({ state }) => `asks for $${state.amount}`)
    .router('size', 'check', ({ state }) => (state.amount > 100 ? 'large' : 'small'), {
      routes: ['small', 'large'],
    })
    .human('approval', 'large', {
      routes: ['approved', 'rejected'],
      prompt: ({ state }) => `Approve $${state.amount}?`,
    })
    .listen('pay', or('small', 'approved'), ({ state }) => {
      state.paid = true;
      return `paid $${state.amount}`;
    });

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** A client connected to a server made from `options`, in this process. */
async function connect(options: McpServeOptions): Promise<Client> {
  const server = createMcpServer(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

describe('createMcpServer', () => {
  it('lists one tool per crew and flow, with input schemas from placeholders and zod state', async () => {
    const typed = createFlow({
      name: 'typed',
      state: z.object({ amount: z.number().min(0), note: z.string().default('') }),
    }).start('go', ({ state }) => state.amount);
    const client = await connect({
      crews: { 'research crew': researchCrew() },
      flows: { refunds: refunds(), typed },
    });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['research_crew', 'refunds', 'typed']);
    const [crew, free, zod] = tools;
    expect(crew?.description).toContain('A short article about a topic');
    expect(crew?.inputSchema).toMatchObject({
      type: 'object',
      properties: { topic: { type: 'string' }, audience: { type: 'string' } },
      required: ['topic', 'audience'],
    });
    expect(crew?.inputSchema.properties?.topic).toMatchObject({
      description: expect.stringContaining('task research (description)'),
    });
    expect(free?.inputSchema).toMatchObject({ type: 'object', additionalProperties: {} });
    expect(free?.description).toContain('may pause for a human');
    expect(zod?.inputSchema).toMatchObject({
      type: 'object',
      properties: { amount: { type: 'number', minimum: 0 }, note: { type: 'string' } },
      required: ['amount'],
    });
  });

  it('runs a crew for a call: its raw output as text, status, execution id and tasks as structured content', async () => {
    const store = new MemoryStore();
    const client = await connect({ crews: { research: researchCrew() }, store });
    const result = await call(client, 'research', { topic: 'owls', audience: 'kids' });
    expect(result.isError).toBeUndefined();
    expect(result.content).toEqual([{ type: 'text', text: 'Writer: edit the draft' }]);
    const data = result.structuredContent as { executionId: string };
    expect(data).toEqual({
      status: 'completed',
      executionId: expect.any(String),
      raw: 'Writer: edit the draft',
      tasks: [
        { name: 'research', raw: 'Researcher: research owls' },
        { name: 'write', raw: 'Writer: write about owls for kids' },
        { name: 'edit', raw: 'Writer: edit the draft' },
      ],
    });
    // A durable run: the store holds its results under the execution id.
    expect(await store.list('crew_task_results', data.executionId)).toHaveLength(3);
  });

  it('refuses arguments that miss a placeholder, naming it, before any run', async () => {
    const client = await connect({ crews: { research: researchCrew() } });
    const result = await call(client, 'research', { topic: 'owls' });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('audience');
  });

  it('sends a progress notification per settled task when the call has a progress token', async () => {
    const client = await connect({ crews: { research: researchCrew() } });
    const seen: Progress[] = [];
    await client.callTool({ name: 'research', arguments: { topic: 'owls', audience: 'kids' } }, undefined, {
      onprogress: (p) => seen.push(p),
    });
    expect(seen.map((p) => [p.progress, p.total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(seen[0]?.message).toBe('research completed');
  });

  it('reports the settled steps of a flow as progress, without a total (routers decide what runs)', async () => {
    const client = await connect({ flows: { refunds: refunds() }, store: new MemoryStore() });
    const seen: Progress[] = [];
    await client.callTool({ name: 'refunds', arguments: { amount: 40 } }, undefined, {
      onprogress: (p) => seen.push(p),
    });
    expect(seen.map((p) => [p.progress, p.total, p.message])).toEqual([
      [1, undefined, 'check completed'],
      [2, undefined, 'size completed'],
      [3, undefined, 'pay completed'],
    ]);
  });

  it('aborts the runs in flight when its signal aborts: the call ends as an aborted error', async () => {
    let started: () => void = () => {};
    const modelStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const hanging = createScriptedModel((request) => () => {
      started();
      return new Promise<string>((_, reject) => {
        request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
      });
    });
    const agent = new Agent({ role: 'Writer', goal: 'write', llm: hanging });
    const crew = new Crew({
      name: 'slow',
      tasks: [new Task({ name: 'draft', description: 'draft', agent })],
    });
    const stop = new AbortController();
    const client = await connect({ crews: { slow: crew }, signal: stop.signal });
    const pending = call(client, 'slow', {});
    await modelStarted;
    stop.abort(new Error('shutting down'));
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'aborted' } });
  });

  it('returns a failed crew run as isError naming the failure and its code', async () => {
    const broken = createScriptedModel([new Error('provider down')]);
    const agent = new Agent({ role: 'Writer', goal: 'write', llm: broken });
    const crew = new Crew({
      name: 'fragile',
      tasks: [new Task({ name: 'draft', description: 'draft', agent, maxRetries: 0 })],
    });
    const client = await connect({ crews: { fragile: crew } });
    const result = await call(client, 'fragile', {});
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: expect.stringMatching(/failed:\ndraft: .*provider down/) },
    ]);
    expect(result.structuredContent).toMatchObject({
      status: 'failed',
      failures: { draft: { message: expect.stringContaining('provider down') } },
    });
  });

  it('returns a paused flow run with its pending step and how to resume it; the run resumes by its id', async () => {
    const store = new MemoryStore();
    const flow = refunds();
    const client = await connect({ flows: { refunds: flow }, store });
    const small = await call(client, 'refunds', { amount: 40 });
    expect(small.structuredContent).toMatchObject({
      status: 'completed',
      state: { paid: true },
      output: 'paid $40',
    });
    expect(small.content).toEqual([{ type: 'text', text: 'paid $40' }]);

    const paused = await call(client, 'refunds', { amount: 480 });
    expect(paused.isError).toBeUndefined();
    const data = paused.structuredContent as { executionId: string };
    expect(data).toMatchObject({
      status: 'paused',
      pending: { step: 'approval', prompt: 'Approve $480?', routes: ['approved', 'rejected'] },
    });
    const [text] = paused.content as { text: string }[];
    expect(text?.text).toContain(`statecrew resume ${data.executionId} --route <approved | rejected>`);
    const done = await flow.resume(data.executionId, { route: 'approved' }, { store });
    expect(done).toMatchObject({ status: 'completed', state: { paid: true } });
  });

  it('returns a flow with a human step and no store as isError store_required', async () => {
    const client = await connect({ flows: { refunds: refunds() } });
    const result = await call(client, 'refunds', { amount: 480 });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'store_required' } });
  });

  it('refuses keys that become the same tool name, and values that are no crew or flow', () => {
    const crew = researchCrew();
    expect(() => createMcpServer({ crews: { 'a.b': crew, a_b: crew } })).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        message: expect.stringContaining('"a.b" and "a_b" both become MCP tool "a_b"'),
      }),
    );
    expect(() => createMcpServer({ crews: { x: {} as Crew } })).toThrow(
      expect.objectContaining({ code: 'invalid_option', message: expect.stringContaining('crews.x') }),
    );
  });
});
