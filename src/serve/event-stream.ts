import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import { InvalidOptionError } from '../errors.js';
import { type FollowedEvent, followEvents } from '../runtime/durable/follow-events.js';
import type { Store } from '../stores/store.js';

/** The longest the event streams together work in one turn of the event loop, in ms. */
const TURN_MS = 5;

/** The turn the streams share: when it began, and whether it is open. */
const turn = { startedAt: 0, open: false };

/**
 * Lets a stream go on while the streams together have worked less than {@link TURN_MS} in this turn
 * of the event loop, else waits for the next turn. Each stream alone yields too, but 200 streams
 * replaying at once — each read and written as soon as the socket takes it — would otherwise hold the
 * loop for all of them: requests, timers and lease heartbeats would wait seconds.
 */
async function takeTurn(): Promise<void> {
  for (;;) {
    const now = performance.now();
    if (!turn.open) {
      turn.open = true;
      turn.startedAt = now;
      setImmediate(() => {
        turn.open = false;
      });
      return;
    }
    if (now - turn.startedAt <= TURN_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** How often an idle stream says it is alive (a comment line), in ms. */
const KEEP_ALIVE_MS = 15_000;

/**
 * How long an `EventSource` waits before it reconnects to a stream that ended, in ms (the stream's
 * `retry:` field): a run that paused may go on, and its events with it.
 */
export const RECONNECT_MS = 3_000;

/** How an event stream writes each event: a kept one, or a live-only one (a text delta). */
export type EventWriter = (stream: SSEStreamingApi, followed: FollowedEvent) => Promise<void>;

/**
 * The first event number a client wants after: its `Last-Event-ID` header (a reconnecting
 * `EventSource`), else the `after` query parameter, else 0. Anything but a whole number ≥ 0 is
 * `invalid_option`, naming where it came from.
 */
export function afterOf(c: Context): number {
  const header = c.req.header('last-event-id');
  const query = c.req.query('after');
  const [where, text] = header !== undefined ? ['Last-Event-ID', header] : ['after', query];
  if (text === undefined || text === '') return 0;
  const after = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(after))
    throw new InvalidOptionError(`GET ${c.req.path}`, where, 'a whole number ≥ 0 (an event number)', text);
  return after;
}

/**
 * A server-sent event stream of run `id`'s kept events after `after`: what is stored, then live until
 * the run settles or pauses (see `followEvents`), with the live-only text deltas of a run this
 * process runs among them, each written by `write`; it ends when the client goes away, and says it
 * is alive while the run is quiet. With `retryMs`, it opens with `retry:`.
 */
export function streamRunEvents(
  c: Context,
  store: Store,
  id: string,
  after: number,
  write: EventWriter,
  retryMs?: number,
): Response {
  return streamSSE(c, async (stream) => {
    // A field alone, with no data: no client dispatches it as a message.
    if (retryMs !== undefined) await stream.write(`retry: ${retryMs}\n\n`);
    const controller = new AbortController();
    stream.onAbort(() => controller.abort());
    const alive = setInterval(() => {
      void stream.write(': alive\n\n').catch(() => controller.abort());
    }, KEEP_ALIVE_MS);
    try {
      await takeTurn();
      for await (const stored of followEvents(store, id, { after, signal: controller.signal, live: true })) {
        await write(stream, stored);
        await takeTurn();
      }
    } finally {
      clearInterval(alive);
    }
  });
}

/**
 * The SSE id of an event: a kept event's number; none for a live-only one, so a client that
 * reconnects after it asks for the kept events after the last it got (old deltas are not sent again).
 */
function idOf({ seq, live }: FollowedEvent): { id?: string } {
  return live === true ? {} : { id: String(seq) };
}

/** Writes a statecrew event: its JSON (with `type`) as the data, its number (a kept one's) as the SSE id. */
export const statecrewWriter: EventWriter = (stream, followed) =>
  stream.writeSSE({ ...idOf(followed), data: JSON.stringify(followed.event) });
