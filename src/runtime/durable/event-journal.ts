import { type Observable, Subject, type Subscription } from 'rxjs';
import type { JsonValue, RecordWrite } from '../../stores/store.js';
import type { StatecrewEvent } from '../../types.js';
import { type StoredEvent, storedEventKey } from './event-record.js';
import { TextIndex } from './event-texts.js';

/** The events a journal leaves out: a streamed piece of text is in the output it ends in. */
const LIVE_ONLY: ReadonlySet<StatecrewEvent['type']> = new Set(['model.delta']);

/**
 * The events a run keeps in its store (`events: 'store'`): it numbers each event the run publishes
 * as it comes (after the last number the store holds, for a resumed run), holds it until the run's
 * next commit, and hands the commit its records — so the log lands with the records it tells of, one
 * commit per step as before. A long text is stored once: a later event that repeats it points to the
 * first (see `readEvents`).
 */
export class EventJournal {
  #seq: number;
  #held: StoredEvent[] = [];
  readonly #texts = new TextIndex();
  readonly #numbered = new Subject<StoredEvent>();
  /** The run's last event, numbered ahead of its publication (it is written with the run's end). */
  #closing: StatecrewEvent | undefined;
  #subscription: Subscription | undefined;

  /** @param lastSeq the highest number the store holds for the run (0 for a new run). */
  constructor(lastSeq: number) {
    this.#seq = lastSeq;
  }

  /** Each kept event with its number, as the journal takes it (no replay: see {@link held}). */
  get numbered$(): Observable<StoredEvent> {
    return this.#numbered.asObservable();
  }

  /** The number of the last event taken. */
  get lastSeq(): number {
    return this.#seq;
  }

  /** Takes every event `events$` publishes from now on, until it completes. */
  listen(events$: Observable<StatecrewEvent>): void {
    this.#subscription?.unsubscribe();
    this.#subscription = events$.subscribe({
      next: (event) => this.#take(event),
      complete: () => this.#numbered.complete(),
      error: () => this.#numbered.complete(),
    });
  }

  /** The events taken and not committed yet, in order. */
  held(): readonly StoredEvent[] {
    return this.#held;
  }

  /** Takes the run's last event now, before it is published: it is written with the run's end. */
  close(event: StatecrewEvent): void {
    this.#take(event);
    this.#closing = event;
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

  /** Stops taking events. */
  stop(): void {
    this.#subscription?.unsubscribe();
    this.#subscription = undefined;
    this.#numbered.complete();
  }

  #take(event: StatecrewEvent): void {
    if (LIVE_ONLY.has(event.type) || event === this.#closing) return;
    this.#seq += 1;
    const numbered = { seq: this.#seq, event };
    this.#held.push(numbered);
    this.#numbered.next(numbered);
  }
}
