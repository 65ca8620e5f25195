import { CorruptSnapshotError, InvalidOptionError } from '../../errors.js';
import { checkStore, type Store } from '../../stores/store.js';
import type { StatecrewEvent } from '../../types.js';
import { expandTexts } from './event-texts.js';

/** One event a run kept in its store (`events: 'store'`), with its number in the run's log. */
export interface StoredEvent {
  /** 1, 2, 3, … in the order the run published its events (a resumed run goes on counting). */
  seq: number;
  event: StatecrewEvent;
}

/** What {@link readEvents} returns. */
export interface ReadEventsOptions {
  /** Only the events numbered after this one (an SSE client's `Last-Event-ID`). @default 0 */
  after?: number | undefined;
}

/** Digits of a stored event's key: its number, zero-padded so keys sort as numbers do. */
const KEY_DIGITS = 12;

/** The record key of event number `seq`. */
export function storedEventKey(seq: number): string {
  return String(seq).padStart(KEY_DIGITS, '0');
}

/**
 * The events run `id` kept in `store` (it ran with `events: 'store'`), in order, each with its
 * number: everything from its start, or only those after `after`. Texts stored once come back whole.
 * A run that kept nothing (or an unknown id) reads as `[]`.
 *
 * @example
 * for (const { seq, event } of await readEvents(store, 'refund-42', { after: 10 })) console.log(seq, event.type);
 */
export async function readEvents(
  store: Store,
  id: string,
  options: ReadEventsOptions = {},
): Promise<StoredEvent[]> {
  if (store === undefined) throw new InvalidOptionError('readEvents', 'store', 'a Store', store);
  checkStore('readEvents', store);
  const after = checkAfter('readEvents', options.after ?? 0);
  const records = await store.list('run_events', id);
  const compact = new Map(records.map((record) => [seqOf(id, record.key), record.value]));
  const full = expandTexts(compact);
  const events: StoredEvent[] = [];
  for (const [seq, event] of full)
    if (seq > after) events.push({ seq, event: event as unknown as StatecrewEvent });
  return events.sort((a, b) => a.seq - b.seq);
}

/** The highest event number `store` holds for run `id` (0 when it kept none). */
export async function lastStoredSeq(store: Store, id: string): Promise<number> {
  const records = await store.list('run_events', id);
  return records.reduce((last, record) => Math.max(last, seqOf(id, record.key)), 0);
}

function seqOf(id: string, key: string): number {
  const seq = /^[0-9]+$/.test(key) ? Number(key) : Number.NaN;
  if (!Number.isSafeInteger(seq) || seq < 1)
    throw new CorruptSnapshotError('run_events', id, key, 'its key is not an event number');
  return seq;
}

/** An `after` option: a whole number ≥ 0 (an event number), else `invalid_option` naming `where`. */
export function checkAfter(where: string, after: number): number {
  if (!Number.isInteger(after) || after < 0)
    throw new InvalidOptionError(where, 'after', 'a whole number ≥ 0 (an event number)', after);
  return after;
}
