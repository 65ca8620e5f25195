import { createOpenAI } from '@ai-sdk/openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { fromAiSdk } from '../src/ai-sdk.js';
import { Agent, Crew, type StatecrewEvent, Task } from '../src/index.js';
import { createManualClock } from '../src/testing.js';
import { type OpenAiServer, startOpenAiServer, type WireReply } from './fixtures/openai-server.js';

let server: OpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function openAiAgent(
  script: (n: number) => WireReply,
  options: Partial<ConstructorParameters<typeof Agent>[0]> = {},
) {
  server = await startOpenAiServer((_, n) => script(n));
  const provider = createOpenAI({ baseURL: server.url, apiKey: 'test-key' });
  return new Agent({
    role: 'Researcher',
    goal: 'find facts',
    llm: fromAiSdk(provider.chat('gpt-test'), { temperature: 0 }),
    ...options,
  });
}

describe('fromAiSdk with the AI SDK OpenAI provider, over the wire to a local server', () => {
  it('sends the persona as the system message and the task with its context as the user’s; counts the server’s usage', async () => {
    const researcher = await openAiAgent(() => ({
      content: 'three facts',
      usage: { prompt: 42, completion: 7 },
    }));
    const first = new Task({ name: 'first', description: 'Say hi', agent: researcher });
    const facts = new Task({
      name: 'facts',
      description: 'List facts',
      expectedOutput: '3 bullets',
      agent: researcher,
    });
    const out = await new Crew({ tasks: [first, facts] }).kickoff();
    expect(out.status).toBe('completed');
    expect(out.raw).toBe('three facts');
    const request = server?.requests[1];
    expect(request?.model).toBe('gpt-test');
    expect(request?.temperature).toBe(0);
    expect(request?.messages).toEqual([
      { role: 'system', content: 'You are Researcher. Your goal: find facts.' },
      { role: 'user', content: 'Task: List facts\nExpected output: 3 bullets\n\nContext:\nthree facts' },
    ]);
    expect(out.nodes[1]?.usage).toEqual({ inputTokens: 42, outputTokens: 7, totalTokens: 49, calls: 1 });
    const total = { inputTokens: 84, outputTokens: 14, totalTokens: 98, calls: 2 };
    expect(out.usage).toEqual({
      ...total,
      workers: total,
      manager: { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 },
      agents: { Researcher: total },
    });
  });

  it('sends an agent’s temperature and token cap over the model’s own; refuses ones out of range', async () => {
    const researcher = await openAiAgent(() => ({ content: 'ok' }), {
      temperature: 0.7,
      maxOutputTokens: 64,
    });
    await new Crew({ tasks: [new Task({ name: 't', description: 'Say hi', agent: researcher })] }).kickoff();
    expect(server?.requests[0]).toMatchObject({ temperature: 0.7, max_tokens: 64 });
    const llm = researcher.llm;
    expect(() => new Agent({ role: 'A', llm, temperature: 3 })).toThrow(/option "temperature"/);
    expect(() => new Agent({ role: 'A', llm, maxOutputTokens: 0 })).toThrow(/option "maxOutputTokens"/);
  });

  it('counts each provider call exactly once when agents share one model, the manager’s apart', async () => {
    server = await startOpenAiServer((_, n) => ({
      content: n === 0 ? 'Writer' : n === 2 ? 'Writer' : 'text',
      usage: { prompt: 10 + n, completion: n },
    }));
    const shared = fromAiSdk(createOpenAI({ baseURL: server.url, apiKey: 'k' }).chat('gpt-test'));
    const writer = new Agent({ role: 'Writer', llm: shared });
    const editor = new Agent({ role: 'Editor', llm: shared });
    const boss = new Agent({ role: 'Boss', llm: shared });
    const tasks = [
      new Task({ name: 'draft', description: 'Draft it' }),
      new Task({ name: 'edit', description: 'Edit it' }),
    ];
    const out = await new Crew({
      tasks,
      agents: [writer, editor],
      process: 'hierarchical',
      manager: boss,
    }).kickoff();
    const served = server.requests.map((_, n) => ({ input: 10 + n, output: n }));
    expect(served).toHaveLength(5); // allocate, draft, allocate, edit, synthesize
    const sum = (ns: number[]) => ns.reduce((a, b) => a + b, 0);
    expect(out.usage.inputTokens).toBe(sum(served.map((s) => s.input)));
    expect(out.usage.outputTokens).toBe(sum(served.map((s) => s.output)));
    expect(out.usage.calls).toBe(5);
    expect(out.usage.manager).toMatchObject({ calls: 3, inputTokens: 10 + 12 + 14, outputTokens: 0 + 2 + 4 });
    expect(out.usage.workers).toMatchObject({ calls: 2, inputTokens: 11 + 13, outputTokens: 1 + 3 });
    expect(out.nodes.map((n) => n.usage.inputTokens)).toEqual([11, 13]);
  });

  it('runs the tool loop: the model calls a tool, statecrew runs it and sends the result back', async () => {
    const search = {
      name: 'search',
      description: 'Search the web',
      parameters: z.object({ query: z.string() }),
      execute: async (args: unknown) => `results for ${(args as { query: string }).query}`,
    };
    const researcher = await openAiAgent(
      (n) =>
        n === 0
          ? { toolCalls: [{ id: 'call_1', name: 'search', arguments: { query: 'xstate' } }] }
          : { content: 'done' },
      { tools: [search] },
    );
    const out = await new Crew({
      tasks: [new Task({ name: 't', description: 'Research', agent: researcher })],
    }).kickoff();
    expect(out.raw).toBe('done');
    expect(out.nodes[0]?.toolCalls).toEqual([
      { tool: 'search', args: { query: 'xstate' }, result: 'results for xstate' },
    ]);
    const [first, second] = server?.requests ?? [];
    expect(first?.tools?.[0]).toMatchObject({
      type: 'function',
      function: { name: 'search', description: 'Search the web' },
    });
    expect(second?.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"query":"xstate"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'results for xstate' },
    ]);
  });

  it('waits out a 429’s retry-after on the run’s clock, then succeeds', async () => {
    const researcher = await openAiAgent((n) =>
      n === 0 ? { status: 429, error: 'slow down', headers: { 'retry-after': '3' } } : { content: 'ok' },
    );
    const clock = createManualClock();
    const run = new Crew({ tasks: [new Task({ name: 't', description: 'x', agent: researcher })] }).run({
      clock,
    });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    await clock.whenTimer();
    expect(events.find((e) => e.type === 'node.retrying')).toMatchObject({ delayMs: 3000 });
    clock.advance(2_999);
    expect(server?.requests).toHaveLength(1);
    clock.advance(1);
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(server?.requests).toHaveLength(2);
  });

  it('does not retry a 400: the task fails once, with the provider’s message and status', async () => {
    const researcher = await openAiAgent(() => ({ status: 400, error: 'bad request: no such model' }));
    const out = await new Crew({
      tasks: [new Task({ name: 't', description: 'x', agent: researcher })],
    }).kickoff();
    expect(out.status).toBe('failed');
    expect(server?.requests).toHaveLength(1);
    expect(out.failures.t).toMatchObject({ retryable: false, details: { status: 400 } });
    expect(out.errors.t).toMatch(/no such model/);
  });

  it('aborts the HTTP request when the attempt times out: the server sees the connection closed', async () => {
    const researcher = await openAiAgent(() => ({ hang: true }), { timeoutMs: 50, maxRetries: 0 });
    // The attempt's time limit runs on the host's setTimeout: faked, it passes once the server holds
    // the request (on a busy machine 50 ms of real time could pass before the request is even sent).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const run = new Crew({
        tasks: [new Task({ name: 't', description: 'x', agent: researcher })],
      }).kickoff();
      await server?.whenRequests(1);
      expect(server?.closed).toBe(0);
      vi.advanceTimersByTime(50);
      await server?.whenClosed(1);
      const out = await run;
      expect(out.failures.t?.code).toBe('task_timeout');
      expect(server?.closed).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('aborts the HTTP request when the run is aborted', async () => {
    const researcher = await openAiAgent(() => ({ hang: true }));
    const controller = new AbortController();
    const run = new Crew({ tasks: [new Task({ name: 't', description: 'x', agent: researcher })] }).kickoff({
      signal: controller.signal,
    });
    await server?.whenRequests(1);
    controller.abort('user cancelled');
    await expect(run).rejects.toMatchObject({ code: 'aborted' });
    await server?.whenClosed(1);
    expect(server?.closed).toBe(1);
  });

  it('streams: text deltas are model.delta events in order, the final text unchanged', async () => {
    const researcher = await openAiAgent(
      () => ({ chunks: ['Hel', 'lo, ', 'world'], usage: { prompt: 3, completion: 3 } }),
      {
        stream: true,
      },
    );
    const run = new Crew({ tasks: [new Task({ name: 't', description: 'x', agent: researcher })] }).run();
    const deltas: string[] = [];
    run.events$.subscribe((e) => {
      if (e.type === 'model.delta') deltas.push(`${e.nodeId}:${e.delta}`);
    });
    const out = await run.result;
    expect(server?.requests[0]?.stream).toBe(true);
    expect(deltas).toEqual(['t:Hel', 't:lo, ', 't:world']);
    expect(out.raw).toBe('Hello, world');
    expect(out.usage.totalTokens).toBe(6);
  });

  it('streams every agent when the run says so', async () => {
    const researcher = await openAiAgent(() => ({ chunks: ['a', 'b'] }));
    const run = new Crew({ tasks: [new Task({ name: 't', description: 'x', agent: researcher })] }).run({
      stream: true,
    });
    const deltas: string[] = [];
    run.events$.subscribe((e) => {
      if (e.type === 'model.delta') deltas.push(e.delta);
    });
    expect((await run.result).raw).toBe('ab');
    expect(deltas).toEqual(['a', 'b']);
  });

  it('prices each call from the crew’s price table by the model’s id, per node and per run', async () => {
    const researcher = await openAiAgent(() => ({ content: 'ok', usage: { prompt: 1000, completion: 500 } }));
    const tasks = [
      new Task({ name: 'a', description: 'x', agent: researcher }),
      new Task({ name: 'b', description: 'y', agent: researcher }),
    ];
    const prices = { 'openai:gpt-test': { inputPerMTok: 2, outputPerMTok: 8 } };
    const out = await new Crew({ tasks, prices }).kickoff();
    expect(out.nodes.map((n) => n.usage.costUsd)).toEqual([0.006, 0.006]);
    expect(out.usage.costUsd).toBeCloseTo(0.012, 10);
    expect(() => new Crew({ tasks, prices: { 'openai:x': { inputPerMTok: -1, outputPerMTok: 1 } } })).toThrow(
      /prices\["openai:x"\].inputPerMTok/,
    );
  });

  it('retries a 500 and a dropped connection, then succeeds', async () => {
    const researcher = await openAiAgent(
      (n) =>
        n === 0
          ? { status: 500, error: 'upstream broke' }
          : n === 1
            ? { drop: true }
            : { content: 'third time' },
      { retryDelayMs: 0 },
    );
    const out = await new Crew({
      tasks: [new Task({ name: 't', description: 'x', agent: researcher })],
    }).kickoff();
    expect(out.status).toBe('completed');
    expect(out.raw).toBe('third time');
    expect(out.nodes[0]?.attempts).toBe(3);
    expect(server?.requests).toHaveLength(3);
  });

  it('asks for the provider’s structured output when the task has a schema, and repairs an invalid reply', async () => {
    const researcher = await openAiAgent(
      (n) => ({ content: n === 0 ? '{"title": 42}' : '```json\n{"title": "Agents", "points": 3}\n```' }),
      { retryDelayMs: 0 },
    );
    const outputSchema = z.object({ title: z.string(), points: z.number() });
    const task = new Task({ name: 't', description: 'Summarize', agent: researcher, outputSchema });
    const out = await new Crew({ tasks: [task] }).kickoff();
    expect(out.tasksOutput[0]?.structured).toEqual({ title: 'Agents', points: 3 });
    expect(out.nodes[0]?.attempts).toBe(2); // the first reply failed validation (output_invalid) and was retried
    // The retry tells the model what was wrong with its first reply.
    expect(server?.requests[1]?.messages.at(-1)?.content).toMatch(
      /Feedback: your previous answer was rejected: Output of task "t" does not match its schema: title: /,
    );
    const format = server?.requests[0]?.response_format as { type: string; json_schema: { schema: unknown } };
    expect(format.type).toBe('json_schema');
    expect(format.json_schema.schema).toMatchObject({
      type: 'object',
      properties: { title: { type: 'string' } },
    });
  });
});
