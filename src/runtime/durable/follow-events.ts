import { InvalidOptionError } from '../../errors.js';
import { checkStore, type Store } from '../../stores/store.js';
import { checkAfter, readEvents, type StoredEvent } from './event-record.js';
import { type LiveJournal, liveJournal, whenJournal } from './live-journals.js';

/**
 * What {@link followEvents} yields: a kept event with its number, or — with `live` — a live-only
 * event (`model.delta`), marked `live: true`, carrying the number of the last kept event before it
 * (it has none of its own: a follower that reconnects after it gets the kept events, not it).
 */
export type FollowedEvent = StoredEvent & { live?: true };

/** Options of {@link followEvents}. */
export interface FollowEventsOptions {
  /** Only the events numbered after this one (an SSE client's `Last-Event-ID`). @default 0 */
  after?: number | undefined;
  /** Ends the stream (it then returns without an error). */
  signal?: AbortSignal | undefined;
  /**
   * How often the store is read for a run that runs in another process, in ms (a run of this
   * process is followed as it publishes). @default 500
   */
  pollMs?: number | undefined;
  /**
   * Also the run's live-only events (`model.delta`: a streaming model's text) as they come, while
   * this process runs it; they are never stored, so a run elsewhere or a replay has none. A run
   * publishes them only while someone follows them. @default false
   */
  live?: boolean | undefined;
}

/**
 * A run's kept events (it runs with `events: 'store'`), from the start or after `after`, then live
 * until the run settles or pauses: each once, in order, numbered as `readEvents` numbers them. A run
 * of this process is followed as it publishes; a run elsewhere (another server, a worker) by reading
 * the store every `pollMs`. A run not stored yet is waited for. Ends when `signal` aborts.
 *
 * @example
 * for await (const { seq, event } of followEvents(store, 'refund-42')) console.log(seq, event.type);
 */
export async function* followEvents(
  store: Store,
  id: string,
  options: FollowEventsOptions = {},
): AsyncGenerator<FollowedEvent, void, undefined> {
  const { after = 0, signal, pollMs = 500, live = false } = options;
  checkFollowOptions(store, after, pollMs);
  let last = after;
  while (signal?.aborted !== true) {
    const journal = liveJournal(store, id);
    if (journal !== undefined) {
      for await (const stored of followJournal(journal, store, id, last, { signal, live })) {
        if (stored.live !== true) last = stored.seq;
        yield stored;
      }
      // Its last event came through the journal: once the store says it settled or paused, there is
      // nothing more to read (reading the whole log again, per follower, is what a poll costs).
      if (journal.closed && (await store.readRun(id))?.status !== 'running') return;
      continue;
    }
    // A run of this process that starts keeping its events meanwhile (while the store is read, too)
    // is followed at once.
    const journalOf = whenJournal(store, id);
    try {
      const head = await store.readRun(id);
      // What the head's last change committed is in the store: read after the head.
      for (const stored of await readEvents(store, id, { after: last })) {
        last = stored.seq;
        yield stored;
      }
      if (head !== undefined && head.status !== 'running') return;
      await Promise.race([pause(pollMs, signal), journalOf.registered]);
    } finally {
      journalOf.cancel();
    }
  }
}

/**
 * Every event run `id` kept so far, without waiting: those in the store and, for a run this process
 * runs now, those its journal numbered and has not committed yet (a step under way) — what a
 * follower has been sent by now.
 */
export async function eventsSoFar(store: Store, id: string): Promise<StoredEvent[]> {
  const journal = liveJournal(store, id);
  const stored = await readEvents(store, id);
  if (journal === undefined) return stored;
  const earlier = stored.filter((kept) => kept.seq < journal.firstSeq);
  return [...earlier, ...journal.since(journal.firstSeq - 1)];
}

function checkFollowOptions(store: Store, after: number, pollMs: number): void {
  if (store === undefined) throw new InvalidOptionError('followEvents', 'store', 'a Store', store);
  checkStore('followEvents', store);
  checkAfter('followEvents', after);
  if (!Number.isInteger(pollMs) || pollMs < 1)
    throw new InvalidOptionError('followEvents', 'pollMs', 'a whole number of ms ≥ 1', pollMs);
}

/**
 * The events of a run this process runs, after `after`: those of its earlier segments from the
 * store, those its journal numbered so far, then each as it is numbered (with `live`, its live-only
 * events among them), until the run's events end.
 */
async function* followJournal(
  journal: LiveJournal,
  store: Store,
  id: string,
  after: number,
  options: { signal: AbortSignal | undefined; live: boolean },
): AsyncGenerator<FollowedEvent, void, undefined> {
  const live = new LiveQueue(journal, options);
  try {
    let last = after;
    if (after < journal.firstSeq - 1) {
      for (const stored of await readEvents(store, id, { after })) {
        if (stored.seq >= journal.firstSeq) break;
        last = stored.seq;
        yield stored;
      }
    }
    for (const stored of journal.since(last)) {
      last = stored.seq;
      yield stored;
    }
    for await (const stored of live) {
      if (stored.live === true) {
        // Published before a kept event already yielded (numbered while the earlier ones were read):
        // it would come after what followed it.
        if (stored.seq >= last) yield stored;
        continue;
      }
      if (stored.seq <= last) continue;
      last = stored.seq;
      yield stored;
    }
  } finally {
    live.close();
  }
}

/**
 * A journal's numbered events as they come (with `live`, its live-only events too, in the order the
 * run published them), buffered until read; ends with the journal's events.
 */
class LiveQueue implements AsyncIterable<FollowedEvent> {
  readonly #buffer: FollowedEvent[] = [];
  #ended = false;
  #wake: (() => void) | undefined;
  readonly #subscription;
  readonly #onAbort = () => this.#end();
  private readonly signal: AbortSignal | undefined;

  constructor(journal: LiveJournal, options: { signal: AbortSignal | undefined; live: boolean }) {
    this.signal = options.signal;
    this.#subscription = journal.numbered$.subscribe({
      next: (stored) => this.#push(stored),
      complete: () => this.#end(),
    });
    if (options.live) {
      this.#subscription.add(
        journal.live$.subscribe((event) => this.#push({ seq: journal.lastSeq, event, live: true })),
      );
    }
    this.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<FollowedEvent, void, undefined> {
    while (true) {
      const next = this.#buffer.shift();
      if (next !== undefined) yield next;
      else if (this.#ended) return;
      else await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  close(): void {
    this.#subscription.unsubscribe();
    this.signal?.removeEventListener('abort', this.#onAbort);
    this.#end();
  }

  #push(followed: FollowedEvent): void {
    this.#buffer.push(followed);
    this.#wake?.();
  }

  #end(): void {
    this.#ended = true;
    this.#wake?.();
  }
}

/** Waits `ms` on the host's timers, or until `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
