import { type Observable, Subject } from 'rxjs';
import type { StatecrewEvent } from '../../types.js';
import type { UnstampedEvent } from '../engine/unstamped-event.js';

export type { UnstampedEvent };

/** Who takes a run's events besides its reducer and its subscribers: the journal of a run that keeps them. */
export interface EventTaker {
  /** Takes `event` (`last`: the run's last event, which its last write carries). */
  take(event: StatecrewEvent, last?: boolean): void;
  /** Whether anyone follows its events live, so that a live-only event it takes would reach someone. */
  readonly followed?: boolean;
  /** The run ended: no more events come. */
  stop(): void;
}

/**
 * The one door every event of a run passes through: {@link emit} stamps it with the run's id and the
 * run's clock, folds it into the run's result (the reducer: a crew's or a flow's recorder), hands it
 * to the journal of a run that keeps its events, and publishes it on `events$`. A kind of run never
 * records or publishes an event another way, so the result, the kept log, subscribers and telemetry
 * (a subscriber too) always see the same events.
 */
export class RunEvents {
  readonly #subject = new Subject<StatecrewEvent>();
  readonly events$: Observable<StatecrewEvent> = this.#subject.asObservable();
  #journal: EventTaker | undefined;

  constructor(
    readonly runId: string,
    readonly now: () => number,
    /** Folds an event, and when it happened, into the run's result. */
    private readonly reduce: (event: UnstampedEvent, at: number) => void,
  ) {}

  /**
   * Whether anyone takes the events besides the reducer (a subscriber, a journal): when nobody does, an
   * emitter may leave out what only they read and costs much to build (a task run's prompt).
   */
  get observed(): boolean {
    return this.#journal !== undefined || this.#subject.observed;
  }

  /**
   * Whether anyone follows the events live — a subscriber of `events$`, a follower of the kept
   * events (`followEvents` with `live`) — so that a live-only event (`model.delta`) reaches someone:
   * when nobody does, an emitter leaves it out, and a run without followers pays nothing for it.
   */
  get followed(): boolean {
    return this.#subject.observed || this.#journal?.followed === true;
  }

  /** Hands every later event to `journal` too (a run that keeps its events in its store). */
  keepIn(journal: EventTaker): void {
    this.#journal = journal;
  }

  /**
   * Records `event` and, when anyone takes the events, stamps it (in place: every caller hands over a
   * fresh object) and hands it on: to the journal, then to `events$`.
   */
  emit(event: UnstampedEvent): void {
    const at = this.now();
    this.reduce(event, at);
    // Nobody takes it: its stamp would be written for nothing (a hot path of every node run).
    if (this.#journal === undefined && !this.#subject.observed) return;
    const stamped = event as StatecrewEvent;
    stamped.runId = this.runId;
    stamped.at = at;
    this.#journal?.take(stamped);
    if (this.#subject.observed) this.#subject.next(stamped);
  }

  /**
   * Stamps the run's last event (`run.completed`, `run.failed`) and hands it to the journal now, so
   * the run's last write carries it; {@link closed} records and publishes it once that write landed
   * (a subscriber that sees it can read the run's end from the store).
   */
  closing(event: UnstampedEvent): StatecrewEvent {
    const stamped = this.#stamp(event);
    this.#journal?.take(stamped, true);
    return stamped;
  }

  /** Records and publishes the run's last event, which {@link closing} stamped and kept. */
  closed(stamped: StatecrewEvent): void {
    this.reduce(stamped, stamped.at);
    if (this.#subject.observed) this.#subject.next(stamped);
  }

  /**
   * Passes on an event of another run inside this one (a crew a flow step kicked off), tagged with the
   * step: kept and published, never folded into this run's result.
   */
  relay(event: StatecrewEvent, step: string): void {
    const tagged = { ...event, step };
    this.#journal?.take(tagged);
    if (this.#subject.observed) this.#subject.next(tagged);
  }

  /** Ends `events$`, and the journal's taking. */
  complete(): void {
    this.#journal?.stop();
    this.#subject.complete();
  }

  #stamp(event: UnstampedEvent): StatecrewEvent {
    const stamped = event as StatecrewEvent;
    stamped.runId = this.runId;
    stamped.at = this.now();
    return stamped;
  }
}
