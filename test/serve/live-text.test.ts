import { type BaseEvent, HttpAgent } from '@ag-ui/client';
import { EventSource } from 'eventsource';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, Crew, readEvents, type SqliteStore, Task } from '../../src/index.js';
import type { EventJournal } from '../../src/runtime/durable/event-journal.js';
import { liveJournal } from '../../src/runtime/durable/live-journals.js';
import { type Listening, listen } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { createScriptedModel, type HeldText, holdText } from '../../src/testing.js';
import { TOKEN, tempStore, testServer } from './serve-helpers.js';

const auth = { authorization: `Bearer ${TOKEN}` };
const PIECES = ['Once ', 'upon ', 'a time'];

/** What a client received, in order; `until` resolves once something matching came. */
class Inbox<T> {
  readonly items: T[] = [];
  readonly #waiting = new Set<{ match: (item: T) => boolean; found: (item: T) => void }>();

  push(item: T): void {
    this.items.push(item);
    for (const waiter of this.#waiting) {
      if (!waiter.match(item)) continue;
      this.#waiting.delete(waiter);
      waiter.found(item);
    }
  }

  until(match: (item: T) => boolean): Promise<T> {
    const seen = this.items.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((found) => this.#waiting.add({ match, found }));
  }
}

/** A crew of one task whose model streams `text`'s pieces as the test releases them. */
function writerCrew(text: HeldText) {
  const llm = createScriptedModel([{ chunks: text }]);
  const writer = new Agent({ role: 'Writer', goal: 'write', backstory: 'fluent', llm });
  return new Crew({
    name: 'writer',
    tasks: [new Task({ name: 'draft', description: 'Write', agent: writer })],
  });
}

/** Reads an AG-UI stream's frames as they come: each event's type, its delta and its SSE id (if any). */
async function readFrames(
  response: Response,
  onFrame: (frame: { id?: string; type: string; delta?: string }) => void,
): Promise<void> {
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream())
    .getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    const frames = buffer.split('\n\n');
    buffer = frames.pop() ?? '';
    for (const frame of frames) {
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (data === undefined) continue;
      const id = /^id: (.*)$/m.exec(frame)?.[1];
      const { type, delta } = JSON.parse(data) as { type: string; delta?: string };
      onFrame({ type, ...(delta === undefined ? {} : { delta }), ...(id === undefined ? {} : { id }) });
    }
  }
}

let temp: ReturnType<typeof tempStore>;
let store: SqliteStore;
let listening: Listening;
let server: ReturnType<typeof testServer>;
let text: HeldText;

beforeEach(async () => {
  temp = tempStore();
  store = temp.store;
  text = holdText(PIECES);
  server = testServer(store, { crews: [writerCrew(text)] });
  listening = await listen(server, { port: 0 });
});

afterEach(async () => {
  text.releaseAll();
  await server.close();
  await listening.close();
  await temp.dispose();
});

/** Starts a writer run under `id` over HTTP, without waiting for it. */
async function startWriter(id: string): Promise<void> {
  const response = await fetch(`${listening.url}/runs`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ definition: 'writer', inputs: {}, id }),
  });
  expect(response.status).toBe(202);
}

/** The run's status as the server tells it. */
async function statusOf(id: string): Promise<string> {
  const response = await fetch(`${listening.url}/runs/${id}`, { headers: auth });
  return ((await response.json()) as { status: string }).status;
}

interface Received {
  lastEventId: string;
  type: string;
  delta?: string;
}

describe('live text over the event streams', { timeout: 60_000 }, () => {
  it('reaches an EventSource piece by piece while the task runs, with no id, and is never stored', async () => {
    await startWriter('w1');
    const inbox = new Inbox<Received>();
    const source = new EventSource(`${listening.url}/runs/w1/events`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...auth } }),
    });
    source.onmessage = (message) => {
      const event = JSON.parse(message.data) as { type: string; delta?: string };
      inbox.push({ lastEventId: message.lastEventId, ...event });
    };
    try {
      // Following the run: the deltas it streams from now on reach this client.
      await inbox.until((m) => m.type === 'node.started');
      text.release();
      await inbox.until((m) => m.type === 'model.delta');
      text.release();
      await inbox.until((m) => m.delta === 'upon ');
      // Mid-stream: two pieces arrived, the task has not completed and the run runs.
      expect(inbox.items.filter((m) => m.type === 'model.delta').map((m) => m.delta)).toEqual([
        'Once ',
        'upon ',
      ]);
      expect(inbox.items.some((m) => m.type === 'node.completed')).toBe(false);
      expect(await statusOf('w1')).toBe('running');
      text.releaseAll();
      await inbox.until((m) => m.type === 'run.completed');
    } finally {
      source.close();
    }
    await liveRuns(server).get('w1')?.done;
    const stored = await readEvents(store, 'w1');
    expect(stored.some(({ event }) => event.type === 'model.delta')).toBe(false);
    const completed = stored.find(({ event }) => event.type === 'node.completed')?.event;
    expect(completed).toMatchObject({ nodeId: 'draft', output: { raw: 'Once upon a time' } });
    // Every kept event came with its number; a delta has no id, so a reconnect asks after a kept event.
    const deltas = inbox.items.filter((m) => m.type === 'model.delta');
    expect(deltas.map((m) => [m.delta, m.lastEventId])).toEqual(PIECES.map((piece) => [piece, '']));
    const kept = inbox.items.filter((m) => m.type !== 'model.delta');
    expect(kept.map((m) => m.lastEventId)).toEqual(stored.map(({ seq }) => String(seq)));
    // A stream opened afterwards gets the kept events only.
    const replay = await (await fetch(`${listening.url}/runs/w1/events`, { headers: auth })).text();
    expect(replay).toContain('"node.completed"');
    expect(replay).not.toContain('model.delta');
  });

  it('reaches an AG-UI client as TEXT_MESSAGE_CONTENT inside one message for the task, before it completes', async () => {
    await startWriter('a1');
    const inbox = new Inbox<BaseEvent & { messageId?: string; delta?: string }>();
    const agent = new HttpAgent({ url: `${listening.url}/runs/a1/agui`, headers: auth });
    const running = agent.runAgent({}, { onEvent: ({ event }) => void inbox.push(event) });
    await inbox.until((e) => e.type === 'STEP_STARTED');
    text.release();
    await inbox.until((e) => e.type === 'TEXT_MESSAGE_CONTENT');
    text.release();
    await inbox.until((e) => e.delta === 'upon ');
    const sofar = inbox.items.map((e) => e.type);
    expect(sofar).not.toContain('STEP_FINISHED');
    expect(sofar).not.toContain('TEXT_MESSAGE_END');
    expect(sofar).not.toContain('RUN_FINISHED');
    text.releaseAll();
    const { newMessages } = await running;
    const texts = inbox.items.filter((e) => e.type.startsWith('TEXT_MESSAGE_'));
    const messageId = texts[0]?.messageId;
    expect(texts.map((e) => [e.type, e.messageId, e.delta])).toEqual([
      ['TEXT_MESSAGE_START', messageId, undefined],
      ...PIECES.map((piece) => ['TEXT_MESSAGE_CONTENT', messageId, piece]),
      ['TEXT_MESSAGE_END', messageId, undefined],
    ]);
    const types: string[] = inbox.items.map((e) => e.type);
    expect(types.indexOf('TEXT_MESSAGE_END')).toBeLessThan(types.indexOf('STEP_FINISHED'));
    expect(types.at(-1)).toBe('RUN_FINISHED');
    // The task's output is that message, once: not sent again whole when the task completes.
    const said = newMessages.flatMap((m) =>
      'content' in m && typeof m.content === 'string' ? [m.content] : [],
    );
    expect(said).toEqual(['Once upon a time']);
    // Run again from the start with the messages it holds: the output it read streamed is not added twice.
    const again = await agent.runAgent();
    expect(again.newMessages).toEqual([]);
    expect(agent.messages.map((m) => ('content' in m ? m.content : m.role))).toEqual(['Once upon a time']);
  });

  it('gives an HttpAgent that reconnects in the middle of a streamed message the whole text once, in a stream it takes', async () => {
    await startWriter('r1');
    // The first connection, read raw for its SSE ids: it gets the message's first two pieces.
    const first = new AbortController();
    const response = await fetch(`${listening.url}/runs/r1/agui`, { headers: auth, signal: first.signal });
    const frames = new Inbox<{ id?: string; type: string; delta?: string }>();
    const reading = readFrames(response, (frame) => frames.push(frame)).catch(() => {});
    await frames.until((f) => f.type === 'STEP_STARTED');
    text.release();
    await frames.until((f) => f.delta === 'Once ');
    text.release();
    await frames.until((f) => f.delta === 'upon ');
    expect(frames.items.map((f) => [f.type, f.id])).toEqual([
      ['RUN_STARTED', expect.stringMatching(/^\d+:0$/)],
      ['CUSTOM', expect.any(String)],
      ['STEP_STARTED', expect.any(String)],
      ['TEXT_MESSAGE_START', undefined],
      ['TEXT_MESSAGE_CONTENT', undefined],
      ['TEXT_MESSAGE_CONTENT', undefined],
    ]);
    const lastId = frames.items.findLast((f) => f.id !== undefined)?.id as string;
    first.abort();
    await reading;
    const journal = liveJournal(store, 'r1') as EventJournal;
    await expect.poll(() => journal.followed, { timeout: 30_000 }).toBe(false);
    // It reconnects after the last id it saw: the rest of the reply comes once it follows again.
    const agent = new HttpAgent({
      url: `${listening.url}/runs/r1/agui`,
      headers: { ...auth, 'last-event-id': lastId },
    });
    const events: (BaseEvent & { messageId?: string; delta?: string })[] = [];
    const running = agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
    await expect.poll(() => journal.followed, { timeout: 30_000 }).toBe(true);
    text.releaseAll();
    const { newMessages } = await running;
    expect(events[0]?.type).toBe('RUN_STARTED');
    expect(events.at(-1)?.type).toBe('RUN_FINISHED');
    // The reply it came into the middle of is not streamed again in part: the output is its one message.
    const texts = events.filter((e) => e.type.startsWith('TEXT_MESSAGE_'));
    expect(texts.map((e) => [e.type, e.delta])).toEqual([
      ['TEXT_MESSAGE_START', undefined],
      ['TEXT_MESSAGE_CONTENT', 'Once upon a time'],
      ['TEXT_MESSAGE_END', undefined],
    ]);
    expect(newMessages.map((m) => ('content' in m ? m.content : m.role))).toEqual(['Once upon a time']);
  });

  it('gives each AG-UI event of a kept event the SSE id a replay gives it, the streamed message none', async () => {
    await startWriter('i1');
    const response = await fetch(`${listening.url}/runs/i1/agui`, { headers: auth });
    const live = new Inbox<{ id?: string; type: string; delta?: string }>();
    const reading = readFrames(response, (frame) => live.push(frame));
    await live.until((f) => f.type === 'STEP_STARTED');
    text.releaseAll();
    await reading;
    const replay: { id?: string; type: string }[] = [];
    await readFrames(await fetch(`${listening.url}/runs/i1/agui`, { headers: auth }), (f) => replay.push(f));
    const streamed = live.items.filter((f) => f.delta !== undefined).map((f) => [f.delta, f.id]);
    expect(streamed).toEqual(PIECES.map((piece) => [piece, undefined]));
    const ids = live.items.flatMap((f) => (f.id === undefined ? [] : [f.id]));
    expect(new Set(ids).size).toBe(ids.length);
    // The output's message is left out live (it was streamed), yet what follows keeps its replayed id.
    const byId = new Map(replay.map((f) => [f.id, f.type]));
    expect(live.items.filter((f) => f.id !== undefined).map((f) => [f.id, f.type])).toEqual(
      live.items.filter((f) => f.id !== undefined).map((f) => [f.id, byId.get(f.id)]),
    );
    expect(live.items.find((f) => f.type === 'STEP_FINISHED')?.id).toBe(
      replay.find((f) => f.type === 'STEP_FINISHED')?.id,
    );
  });

  it('gives an AG-UI client that comes after the run the stored output as one whole message', async () => {
    await startWriter('a2');
    text.releaseAll();
    await liveRuns(server).get('a2')?.done;
    const agent = new HttpAgent({ url: `${listening.url}/runs/a2/agui`, headers: auth });
    const contents: string[] = [];
    const { newMessages } = await agent.runAgent(
      {},
      {
        onEvent: ({ event }) =>
          void (
            event.type === 'TEXT_MESSAGE_CONTENT' &&
            contents.push(String((event as { delta?: string }).delta))
          ),
      },
    );
    expect(contents).toEqual(['Once upon a time']);
    expect(newMessages.map((m) => ('content' in m ? m.content : undefined))).toEqual(['Once upon a time']);
  });
});
