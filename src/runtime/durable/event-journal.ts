import { type Observable, Subject } from 'rxjs';
import type { JsonValue, RecordWrite, Store } from '../../stores/store.js';
import type { StatecrewEvent } from '../../types.js';
import type { EventTaker } from '../run/run-events.js';
import { type StoredEvent, storedEventKey } from './event-record.js';
import { TextIndex } from './event-texts.js';
import { forgetJournal, registerJournal } from './live-journals.js';

/**
 * The events a journal never numbers nor keeps, only passes to live followers: a streamed piece of
 * text is in the output it ends in.
 */
const LIVE_ONLY: ReadonlySet<StatecrewEvent['type']> = new Set(['model.delta']);

/**
 * The events a run keeps in its store (`events: 'store'`): it numbers each event the run publishes
 * as it comes (after the last number the store holds, for a resumed run), holds it until the run's
 * next commit, and hands the commit its records — so the log lands with the records it tells of, one
 * commit per step as before. A long text is stored once: a later event that repeats it points to the
 * first (see `readEvents`). While the run runs, `followEvents` finds it by its store and id.
 */
export class EventJournal implements EventTaker {
  #seq: number;
  readonly #firstSeq: number;
  /** Every event numbered here, in order (`since`); the last ones not committed yet are `#held`. */
  readonly #taken: StoredEvent[] = [];
  #held: StoredEvent[] = [];
  readonly #texts = new TextIndex();
  readonly #numbered = new Subject<StoredEvent>();
  /** The live-only events, for whoever follows them now. */
  readonly #live = new Subject<StatecrewEvent>();
  /** Whether the run's last event was taken (it is written with the run's end). */
  #closed = false;

  /**
   * @param lastSeq the highest number the store holds for the run (0 for a new run).
   * @param place the run's store and id, where `followEvents` finds the journal while it listens.
   */
  constructor(
    lastSeq: number,
    private readonly place?: { store: Store; id: string },
  ) {
    this.#seq = lastSeq;
    this.#firstSeq = lastSeq + 1;
  }

  /** The number of the first event this journal takes: what comes before is in the store. */
  get firstSeq(): number {
    return this.#firstSeq;
  }

  /** The events this journal numbered after `after`, in order. */
  since(after: number): readonly StoredEvent[] {
    const from = Math.max(0, after - this.#firstSeq + 1);
    return this.#taken.slice(from);
  }

  /** Each kept event with its number, as the journal takes it (no replay: see {@link held}). */
  get numbered$(): Observable<StoredEvent> {
    return this.#numbered.asObservable();
  }

  /** Each live-only event (`model.delta`) as the run publishes it: never numbered, never kept. */
  get live$(): Observable<StatecrewEvent> {
    return this.#live.asObservable();
  }

  /** Whether anyone follows the live-only events now: when nobody does, the run does not build them. */
  get followed(): boolean {
    return this.#live.observed;
  }

  /** The number of the last event taken. */
  get lastSeq(): number {
    return this.#seq;
  }

  /** Starts taking the run's events (`followEvents` finds the journal from now on, until {@link stop}). */
  start(): void {
    if (this.place !== undefined) registerJournal(this.place.store, this.place.id, this);
  }

  /** The events taken and not committed yet, in order. */
  held(): readonly StoredEvent[] {
    return this.#held;
  }

  /** Whether the run's last event was taken: the run settled or paused. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * The records of the events held, for the commit being made; they are no longer held. Say how the
   * commit went ({@link landed}): a later event points only to texts that landed.
   */
  drain(): RecordWrite[] {
    if (this.#held.length === 0) return [];
    const writes = this.#held.map(({ seq, event }) => ({
      collection: 'run_events' as const,
      key: storedEventKey(seq),
      value: this.#texts.compact(event, seq) as JsonValue,
    }));
    this.#held = [];
    return writes;
  }

  /** The commit of the last {@link drain} landed (true) or failed (false: its events are lost). */
  landed(committed: boolean): void {
    if (committed) this.#texts.confirm();
    else this.#texts.discard();
  }

  /** Stops taking events: the run ended. */
  stop(): void {
    if (this.place !== undefined) forgetJournal(this.place.store, this.place.id, this);
    this.#numbered.complete();
    this.#live.complete();
  }

  /**
   * Numbers and holds `event` (`last`: the run's last event, which its last write carries); a
   * live-only event goes to its followers alone.
   */
  take(event: StatecrewEvent, last = false): void {
    if (this.#closed) return;
    if (LIVE_ONLY.has(event.type)) {
      if (this.#live.observed) this.#live.next(event);
      return;
    }
    if (last) this.#closed = true;
    this.#seq += 1;
    const numbered = { seq: this.#seq, event };
    this.#taken.push(numbered);
    this.#held.push(numbered);
    this.#numbered.next(numbered);
  }
}
