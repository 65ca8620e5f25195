import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  LATEST_PROTOCOL_VERSION,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Crew, createFlow, MemoryStore, or, Task } from '../../src/index.js';
import { createMcpServer, type McpServeOptions, type ServedRun } from '../../src/mcp/serve.js';
import { namesWithin } from '../../src/mcp/serve-schema.js';
import { serveHttp } from '../../src/mcp/serve-transports.js';
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

const DAY = 24 * 60 * 60 * 1000;

/** A flow that waits for an outside event: a payment, for a day at most. */
const invoices = () =>
  createFlow({ name: 'invoices', initialState: { amount: 42 } })
    .start('invoice', ({ state }) => `invoice for $${state.amount}`)
    .wait('payment', 'invoice', { event: 'payment.received', timeoutMs: DAY, onTimeout: 'late' })
    .listen('thank', 'payment', () => 'thanks')
    .listen('remind', 'late', () => 'reminder sent');

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
    // The human's prompt is in the text, with the command that answers it.
    expect(text?.text).toContain('Step "approval" asks: Approve $480?');
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
  it('gives every tool an outputSchema, and completed, paused, failed and refused results fit it', async () => {
    const broken = createScriptedModel([new Error('provider down')]);
    const fragile = new Crew({
      name: 'fragile',
      tasks: [
        new Task({
          name: 'draft',
          description: 'draft',
          agent: new Agent({ role: 'Writer', goal: 'write', llm: broken }),
          maxRetries: 0,
        }),
      ],
    });
    const client = await connect({
      crews: { research: researchCrew(), fragile },
      flows: { refunds: refunds(), invoices: invoices() },
      store: new MemoryStore(),
    });
    // Listing the tools makes the SDK's client check every later result against its outputSchema:
    // a result that does not fit rejects the call.
    const { tools } = await client.listTools();
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toMatchObject({
        type: 'object',
        properties: { status: { type: 'string' }, executionId: { type: 'string' } },
        required: ['status'],
      });
    }
    const results = [
      await call(client, 'research', { topic: 'owls', audience: 'kids' }),
      await call(client, 'fragile', {}),
      await call(client, 'refunds', { amount: 40 }),
      await call(client, 'refunds', { amount: 480 }),
      await call(client, 'invoices', {}),
    ];
    expect(results.map((r) => (r.structuredContent as { status: string }).status)).toEqual([
      'completed',
      'failed',
      'completed',
      'paused',
      'paused',
    ]);
    // A run that cannot start (no store for the human step) fits too: `{ status, error }`.
    const bare = await connect({ flows: { refunds: refunds() } });
    await bare.listTools();
    const refused = await call(bare, 'refunds', { amount: 480 });
    expect(refused.structuredContent).toMatchObject({ status: 'failed', error: { code: 'store_required' } });
  });

  it('says to signal a run paused at a wait step, and names the events it waits for', async () => {
    const store = new MemoryStore();
    const flow = invoices();
    const client = await connect({ flows: { invoices: flow }, store });
    const { tools } = await client.listTools();
    expect(tools[0]?.description).toContain('It may pause for an outside event');
    const paused = await call(client, 'invoices', {});
    expect(paused.isError).toBeUndefined();
    const data = paused.structuredContent as { executionId: string };
    const id = data.executionId;
    expect(data).toMatchObject({
      status: 'paused',
      events: ['payment.received'],
      waiting: [{ kind: 'event', step: 'payment', event: 'payment.received', timeoutAt: expect.any(Number) }],
    });
    const [text] = paused.content as { text: string }[];
    expect(text?.text).toContain('Step "payment" waits for event "payment.received" (times out at ');
    expect(text?.text).toContain(`statecrew signal ${id} payment.received [--payload <json>]`);
    expect(text?.text).not.toContain('statecrew resume');
    // The command it names is the one that goes on: a signal of that event.
    const done = await flow.signal(id, 'payment.received', {}, { store });
    expect(done).toMatchObject({ status: 'completed', output: 'thanks' });
  });

  it('keeps a 200-task crew’s and a 200-step flow’s descriptions under 1,000 characters, naming the goal, the count, the first and last', async () => {
    const agent = new Agent({ role: 'Clerk', goal: 'file', llm: echo });
    const tasks = Array.from(
      { length: 200 },
      (_, i) =>
        new Task({
          name: `file-report-${String(i + 1).padStart(3, '0')}`,
          description: `file report ${i + 1}`,
          agent,
        }),
    );
    const big = new Crew({ name: 'filing', goal: 'File every quarterly report', tasks });
    let long = createFlow({ name: 'chain', initialState: {} }).start('step-001', () => 1);
    for (let i = 2; i <= 200; i += 1) {
      const name = `step-${String(i).padStart(3, '0')}`;
      long = long.listen(name, `step-${String(i - 1).padStart(3, '0')}`, () => i);
    }
    const client = await connect({ crews: { filing: big }, flows: { chain: long } });
    const { tools } = await client.listTools();
    const [crew, flow] = tools.map((t) => t.description ?? '');
    expect(crew?.length).toBeLessThanOrEqual(1000);
    expect(crew).toMatch(
      /^File every quarterly report\. Crew "filing", 200 tasks: file-report-001, file-report-002, .*, … \d+ more, file-report-200\.$/,
    );
    expect(flow?.length).toBeLessThanOrEqual(1000);
    expect(flow).toMatch(
      /^Runs the flow "chain" \(200 steps: step-001, step-002, .*, … \d+ more, step-200\)\.$/,
    );
  });

  it('summarises a list of names within its room: the first that fit, how many more, the last', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `t${i + 1}`);
    const summary = namesWithin(many, 60);
    expect(summary.length).toBeLessThanOrEqual(60);
    expect(summary).toMatch(/^t1, t2, .*, … \d+ more, t10000$/);
    expect(namesWithin(['a', 'b'], 60)).toBe('a, b');
    expect(namesWithin(['x'.repeat(80)], 60)).toHaveLength(60);
    expect(namesWithin(['a', 'y'.repeat(80)], 20)).toHaveLength(20);
  });

  it('tells what its storeHint says in a store_required result, instead of the store option', async () => {
    const client = await connect({
      flows: { refunds: refunds() },
      storeHint: 'pass --store <store> to statecrew mcp',
    });
    const result = await call(client, 'refunds', { amount: 480 });
    const [text] = result.content as { text: string }[];
    expect(text?.text).toMatch(
      /^Flow "refunds" .*needs a store to .*: pass --store <store> to statecrew mcp \(store_required\)$/,
    );
    expect(result.structuredContent).toMatchObject({
      error: { code: 'store_required', message: text?.text },
    });
  });
});

describe('createMcpServer over streamable HTTP', () => {
  it('aborts the run when the client cancels its call: kept aborted, and no later task runs', async () => {
    const asked: string[] = [];
    let started: () => void = () => {};
    const modelStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const llm = createScriptedModel((request) => () => {
      const task = request.prompt.split('\nTask: ')[1]?.split('\n')[0] ?? '';
      asked.push(task);
      if (task !== 'draft the note') return Promise.resolve(`done: ${task}`);
      started();
      return new Promise<string>((_, reject) => {
        request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
      });
    });
    const agent = new Agent({ role: 'Writer', goal: 'write', llm });
    const crew = new Crew({
      name: 'slow',
      tasks: [
        new Task({ name: 'draft', description: 'draft the note', agent }),
        new Task({ name: 'publish', description: 'publish the note', agent }),
      ],
    });
    const store = new MemoryStore();
    let heard: (run: ServedRun) => void = () => {};
    const ran = new Promise<ServedRun>((resolve) => {
      heard = resolve;
    });
    const http = await serveHttp(() => createMcpServer({ crews: { slow: crew }, store, onRun: heard }), 0);
    const client = new Client({ name: 'test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      const cancel = new AbortController();
      const calling = client.callTool({ name: 'slow', arguments: {} }, undefined, { signal: cancel.signal });
      await modelStarted;
      cancel.abort(new Error('the user cancelled'));
      await expect(calling).rejects.toThrow('the user cancelled');
      // The SDK's client sent notifications/cancelled: the server aborts the run, which then settles.
      const run = await ran;
      await run.settled;
      expect(await store.readRun(run.id)).toMatchObject({ status: 'aborted', lease: null });
      expect(asked).toEqual(['draft the note']);
    } finally {
      await client.close();
      await http.close();
    }
  });
  it('ends a session that stayed idle past sessionIdleMs when another opens: its id then gets 404', async () => {
    let clock = 0;
    let heardClose: () => void = () => {};
    // The server reads its clock as a response of a session closes: how this test knows it did.
    const now = () => {
      heardClose();
      return clock;
    };
    const http = await serveHttp(() => createMcpServer({ crews: { research: researchCrew() } }), 0, {
      sessionIdleMs: 1000,
      now,
    });
    const post = (body: object, session?: string) =>
      fetch(http.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session === undefined ? {} : { 'mcp-session-id': session }),
        },
        body: JSON.stringify(body),
      });
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    };
    try {
      const opened = await post(initialize);
      const id = opened.headers.get('mcp-session-id') as string;
      await opened.text();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const closed = new Promise<void>((resolve) => {
        heardClose = resolve;
      });
      const noted = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, id);
      expect(noted.status).toBe(202);
      await noted.text();
      await closed;
      heardClose = () => {};

      clock = 5000;
      const other = await post(initialize);
      await other.text();
      expect(other.headers.get('mcp-session-id')).not.toBe(id);
      const gone = await post({ jsonrpc: '2.0', id: 2, method: 'ping' }, id);
      expect(gone.status).toBe(404);
      expect(await gone.json()).toMatchObject({
        error: { message: expect.stringContaining('Session not found') },
      });
    } finally {
      await http.close();
    }
  });
});
