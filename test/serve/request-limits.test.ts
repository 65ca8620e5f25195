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
