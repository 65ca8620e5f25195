import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { EventSource } from 'eventsource';
import { afterEach, describe, expect, it } from 'vitest';
import { fromAiSdk } from '../src/ai-sdk.js';
import { Agent, Crew, MemoryStore, readEvents, Task } from '../src/index.js';
import { createServer, type Listening, listen, type StatecrewServer } from '../src/serve/index.js';
import { liveRuns } from '../src/serve/server.js';
import { TOKEN, tempStore } from './serve/serve-helpers.js';

const usage = {
  inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 4, text: 4, reasoning: undefined },
};

/** The parts of a streamed reply of `pieces`, as an AI SDK provider sends them. */
function partsOf(pieces: readonly string[]): LanguageModelV3StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    ...pieces.map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ];
}

/** A crew of one task whose agent streams from `model` through `fromAiSdk`. */
function writerCrew(model: MockLanguageModelV3) {
  const writer = new Agent({ role: 'Writer', goal: 'write', llm: fromAiSdk(model), stream: true });
  return new Crew({
    name: 'writer',
    tasks: [new Task({ name: 'draft', description: 'Write', agent: writer })],
  });
}

describe("fromAiSdk's streamed text with the AI SDK's mock model", () => {
  it('streams each text delta as a model.delta event, keeps none, and the output is the whole text', async () => {
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({ chunks: partsOf(['Hel', 'lo, ', 'world']), chunkDelayInMs: null }),
      }),
    });
    const store = new MemoryStore();
    const run = writerCrew(model).run({ store, executionId: 'mock-1', events: 'store' });
    const deltas: string[] = [];
    run.events$.subscribe((event) => {
      if (event.type === 'model.delta') deltas.push(`${event.nodeId}:${event.delta}`);
    });
    const out = await run.result;
    expect(model.doStreamCalls).toHaveLength(1);
    expect(deltas).toEqual(['draft:Hel', 'draft:lo, ', 'draft:world']);
    expect(out.raw).toBe('Hello, world');
    expect(out.usage.totalTokens).toBe(7);
    const kept = await readEvents(store, 'mock-1');
    expect(kept.some(({ event }) => event.type === 'model.delta')).toBe(false);
  });
});

describe("an AI SDK model's text over the server's event stream", { timeout: 60_000 }, () => {
  let temp: ReturnType<typeof tempStore> | undefined;
  let server: StatecrewServer | undefined;
  let listening: Listening | undefined;
  let source: EventSource | undefined;

  afterEach(async () => {
    source?.close();
    await server?.close();
    await listening?.close();
    await temp?.dispose();
  });

  it('reaches an EventSource while the provider is still streaming', async () => {
    // The provider's stream, fed by the test: nothing arrives until it says so.
    let feed: ReadableStreamDefaultController<LanguageModelV3StreamPart> | undefined;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        feed = controller;
      },
    });
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream }) });
    temp = tempStore();
    server = createServer({ crews: [writerCrew(model)], store: temp.store, token: TOKEN, runner: false });
    listening = await listen(server, { port: 0 });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const started = await fetch(`${listening.url}/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ definition: 'writer', inputs: {}, id: 'ai-1' }),
    });
    expect(started.status).toBe(202);
    const seen: { type: string; delta?: string }[] = [];
    const waiters: (() => void)[] = [];
    const until = (test: (e: { type: string; delta?: string }) => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (seen.some(test)) resolve();
        };
        check();
        waiters.push(check);
      });
    source = new EventSource(`${listening.url}/runs/ai-1/events`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...auth } }),
    });
    source.onmessage = (message) => {
      seen.push(JSON.parse(message.data) as { type: string; delta?: string });
      for (const wake of waiters) wake();
    };
    await until((e) => e.type === 'node.started');
    const [start, textStart, first, second, ...rest] = partsOf(['Hel', 'lo']);
    for (const part of [start, textStart, first]) feed?.enqueue(part as LanguageModelV3StreamPart);
    await until((e) => e.type === 'model.delta');
    expect(seen.filter((e) => e.type === 'model.delta').map((e) => e.delta)).toEqual(['Hel']);
    expect(seen.some((e) => e.type === 'node.completed')).toBe(false);
    expect(model.doStreamCalls).toHaveLength(1);
    for (const part of [second, ...rest]) feed?.enqueue(part as LanguageModelV3StreamPart);
    feed?.close();
    await until((e) => e.type === 'run.completed');
    expect(seen.filter((e) => e.type === 'model.delta').map((e) => e.delta)).toEqual(['Hel', 'lo']);
    await liveRuns(server).get('ai-1')?.done;
    const kept = await readEvents(temp.store, 'ai-1');
    expect(kept.some(({ event }) => event.type === 'model.delta')).toBe(false);
    expect(kept.find(({ event }) => event.type === 'node.completed')?.event).toMatchObject({
      output: { raw: 'Hello' },
    });
  });
});
