import { EventSource } from 'eventsource';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEvents, type SqliteStore } from '../../src/index.js';
import { type Listening, listen } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { TOKEN, tempStore, testServer } from './serve-helpers.js';

let temp: ReturnType<typeof tempStore>;
let store: SqliteStore;
let listening: Listening;
let server: ReturnType<typeof testServer>;

beforeEach(async () => {
  temp = tempStore();
  store = temp.store;
  server = testServer(store);
  listening = await listen(server, { port: 0 });
});

afterEach(async () => {
  await server.close();
  await listening.close();
  await temp.dispose();
});

const auth = { authorization: `Bearer ${TOKEN}` };

/** Starts a review flow run, which pauses at its human step, and waits until it paused. */
async function pausedRun(id: string): Promise<void> {
  const response = await fetch(`${listening.url}/runs`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ definition: 'review', inputs: { title: 'Launch' }, id }),
  });
  expect(response.status).toBe(202);
  await liveRuns(server).get(id)?.done;
}

/** One request the client made: the Last-Event-ID it sent and the status it got. */
interface Request {
  lastEventId: string | null;
  status: number;
}

describe('the event stream read by the eventsource package', { timeout: 30_000 }, () => {
  it('gets every event once, then 204 on its reconnect after a paused run, and stops reconnecting', async () => {
    await pausedRun('p1');
    const requests: Request[] = [];
    const ids: string[] = [];
    const source = new EventSource(`${listening.url}/runs/p1/events`, {
      fetch: async (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', auth.authorization);
        const response = await fetch(input, { ...init, headers });
        requests.push({ lastEventId: headers.get('last-event-id'), status: response.status });
        return response;
      },
    });
    source.onmessage = (message) => ids.push(message.lastEventId);
    // Ends once the client gives up (CLOSED), or at a third request: one reconnect too many.
    await new Promise<void>((resolve) => {
      source.onerror = () => {
        if (source.readyState === EventSource.CLOSED || requests.length >= 3) resolve();
      };
    });
    source.close();
    const stored = await readEvents(store, 'p1');
    expect(ids).toEqual(stored.map((event) => String(event.seq)));
    expect(requests).toEqual([
      { lastEventId: null, status: 200 },
      { lastEventId: String(stored.length), status: 204 },
    ]);
  });

  it('opens the stream with retry:, and answers 204 for a settled run with nothing after the id asked', async () => {
    await pausedRun('p2');
    const text = await (await fetch(`${listening.url}/runs/p2/events`, { headers: auth })).text();
    expect(text.startsWith('retry: 3000\n\n')).toBe(true);
    const last = (await readEvents(store, 'p2')).length;
    const after = await fetch(`${listening.url}/runs/p2/events?after=${last}`, { headers: auth });
    expect(after.status).toBe(204);
    const before = await fetch(`${listening.url}/runs/p2/events?after=${last - 1}`, { headers: auth });
    expect(before.status).toBe(200);
    expect(await before.text()).toContain(`id: ${last}\n`);
  });
});
