import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqliteStore, StatecrewEvent } from '../../src/index.js';
import { type Listening, listen } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { authed, json, researchCrew, TOKEN, tempStore, testServer, waitingCrew } from './serve-helpers.js';
import { deepRunBody, truncatedPost } from './slow-request.js';

let temp: ReturnType<typeof tempStore>;
let store: SqliteStore;
let listening: Listening;
let server: ReturnType<typeof testServer>;
let waiting: ReturnType<typeof waitingCrew>;

beforeEach(async () => {
  temp = tempStore();
  store = temp.store;
  waiting = waitingCrew('gate');
  server = testServer(store, { crews: [researchCrew(), waiting.crew] });
  listening = await listen(server, { port: 0, requestTimeoutMs: 1000 });
});

afterEach(async () => {
  waiting.release();
  await server.close();
  await listening.close();
  await temp.dispose();
});

/** The events of an SSE response, as they come, until it closes. */
async function* eventsOf(response: Response): AsyncGenerator<StatecrewEvent> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    for (let end = text.indexOf('\n\n'); end !== -1; end = text.indexOf('\n\n')) {
      const data = /^data: (.*)$/m.exec(text.slice(0, end))?.[1];
      text = text.slice(end + 2);
      if (data !== undefined) yield JSON.parse(data) as StatecrewEvent;
    }
  }
}

describe('what the server takes of a request', { timeout: 60_000 }, () => {
  it.each([
    ['crew', 'research', { topic: 'AI' }],
    ['flow', 'review', { title: 'Launch' }],
  ])(
    'answers a %s run whose inputs nest 5,000 levels deep with 400 invalid_inputs, starting nothing',
    async (_, definition, inputs) => {
      const response = await fetch(`${listening.url}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: deepRunBody(definition, inputs, 5000),
      });
      const body = await json(response);
      expect(response.status).toBe(400);
      expect(body.error).toMatchObject({
        code: 'invalid_inputs',
        details: { limit: 'maxInputDepth', maxDepth: 100 },
      });
      expect(body.error?.message).toContain('inputs nest deeper than 100 levels, at inputs.deep.a.a');
      expect(await store.readRun('deep')).toBeUndefined();
    },
  );

  it('answers a body shorter than its Content-Length with 408 and closes the socket, past requestTimeoutMs', async () => {
    const answer = await truncatedPost(listening.url, TOKEN);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(await store.listRuns()).toEqual([]);
  });

  it('keeps an event stream open past the request time limit: the run’s events still come, to its end', async () => {
    const started = await fetch(`${listening.url}/runs`, authed({ body: { definition: 'gate', id: 'g1' } }));
    expect(started.status).toBe(202);
    await waiting.called;
    const stream = await fetch(`${listening.url}/runs/g1/events`, authed());
    expect(stream.status).toBe(200);
    const events = eventsOf(stream);
    expect((await events.next()).value).toMatchObject({ type: 'run.started' });
    // A request opened after the stream, cut off by the limit: the stream has outlived the limit then.
    expect(await truncatedPost(listening.url, TOKEN)).toMatch(/^HTTP\/1\.1 408/);
    waiting.release();
    const seen: string[] = [];
    for await (const event of events) seen.push(event.type);
    expect(seen).toContain('node.completed');
    expect(seen.at(-1)).toBe('run.completed');
    await liveRuns(server).get('g1')?.done;
  });

  it('refuses a requestTimeoutMs that is not a whole number of ms ≥ 1 (invalid_option)', async () => {
    for (const requestTimeoutMs of [0, 1.5, Number.NaN]) {
      const error = await listen(server, { port: 0, requestTimeoutMs }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'invalid_option',
        details: { option: 'requestTimeoutMs', expected: 'a whole number of ms ≥ 1' },
      });
    }
  });
});

/** Counts the TCP connections every server of this process accepts while `body` runs. */
async function countingConnections(body: () => Promise<void>): Promise<number> {
  let accepted = 0;
  const onSocket = () => {
    accepted += 1;
  };
  subscribe('net.server.socket', onSocket);
  try {
    await body();
  } finally {
    unsubscribe('net.server.socket', onSocket);
  }
  return accepted;
}

/** A `POST /runs` of a crew run whose inputs hold `bytes` bytes: over the 1 MiB limit when large. */
function runOfSize(bytes: number, chunked = false): RequestInit {
  const text = JSON.stringify({ definition: 'research', inputs: { topic: 'x'.repeat(bytes) } });
  const body = chunked
    ? new ReadableStream<Uint8Array>({
        start(controller) {
          const data = new TextEncoder().encode(text);
          for (let at = 0; at < data.length; at += 64 * 1024)
            controller.enqueue(data.slice(at, at + 64 * 1024));
          controller.close();
        },
      })
    : text;
  return {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body,
    ...(chunked ? { duplex: 'half' } : {}),
  } as RequestInit;
}

describe('a body over the limit, on a reused keep-alive connection', { timeout: 120_000 }, () => {
  it('answers 413 payload_too_large to every one of 12 tries of Node’s fetch, then serves the next request on the same connection', async () => {
    const statuses: number[] = [];
    const accepted = await countingConnections(async () => {
      for (let i = 0; i < 12; i++) {
        const response = await fetch(`${listening.url}/runs`, runOfSize(3 * 1024 * 1024));
        statuses.push(response.status);
        expect((await json(response)).error).toMatchObject({
          code: 'payload_too_large',
          details: { limit: 1024 * 1024 },
        });
      }
      const next = await fetch(`${listening.url}/definitions`, authed());
      expect(next.status).toBe(200);
      await next.arrayBuffer();
    });
    expect(statuses).toEqual(Array(12).fill(413));
    // Kept alive: the tries share the connections (Node's fetch may open a second one while it
    // finishes writing the first body), none is dropped.
    expect(accepted).toBeLessThanOrEqual(2);
    expect(await store.listRuns()).toEqual([]);
  });

  it('reads a chunked body too: 413 when it grows past the limit, and a chunked body within it starts its run', async () => {
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${listening.url}/runs`, runOfSize(2 * 1024 * 1024, true));
      expect(response.status).toBe(413);
      expect((await json(response)).error?.code).toBe('payload_too_large');
    }
    const small = await fetch(`${listening.url}/runs`, runOfSize(1000, true));
    expect(small.status).toBe(202);
    const { id } = (await json(small)) as { id: string };
    await liveRuns(server).get(id)?.done;
    expect((await store.readRun(id))?.status).toBe('completed');
  });
});

describe('a server that submits runs to a queue', () => {
  it('answers inputs nested 5,000 levels deep with 400 invalid_inputs before it submits anything', async () => {
    const queued = testServer(store, {
      queue: { connection: 'redis://127.0.0.1:1', queue: 'never-reached' },
    });
    const at = await listen(queued, { port: 0 });
    try {
      const response = await fetch(`${at.url}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: deepRunBody('review', { title: 'Launch' }, 5000),
      });
      expect(response.status).toBe(400);
      expect((await json(response)).error).toMatchObject({
        code: 'invalid_inputs',
        details: { where: 'POST /runs', limit: 'maxInputDepth' },
      });
    } finally {
      await at.close();
    }
  });
});
