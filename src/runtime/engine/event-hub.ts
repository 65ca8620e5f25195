import { type Observable, Subject } from 'rxjs';
import type { StatecrewEvent } from '../../types.js';

type WithoutStamp<E> = E extends unknown ? Omit<E, 'runId' | 'at'> : never;

/** An event before the hub stamps it with the run id and time. */
export type UnstampedEvent = WithoutStamp<StatecrewEvent>;

/**
 * The one channel every event of a run passes through: stamped with the run id and the run's clock,
 * handed to the run's reducer first (which builds the result) and then to `events$` subscribers.
 */
export class EventHub {
  readonly #subject = new Subject<StatecrewEvent>();
  readonly events$: Observable<StatecrewEvent> = this.#subject.asObservable();

  constructor(
    readonly runId: string,
    readonly now: () => number,
    private readonly reduce: (event: StatecrewEvent) => void,
  ) {}

  /** Whether anyone subscribes to `events$`: when nobody does, hot paths build no event objects. */
  get observed(): boolean {
    return this.#subject.observed;
  }

  /**
   * Stamps `event` (in place: every caller hands over a fresh object), records it, and publishes it
   * when someone listens.
   */
  emit(event: UnstampedEvent): void {
    this.emitStamped(this.stamp(event));
  }

  /** Stamps `event` (in place) without recording or publishing it: {@link emitStamped} does that later. */
  stamp(event: UnstampedEvent): StatecrewEvent {
    const stamped = event as StatecrewEvent;
    stamped.runId = this.runId;
    stamped.at = this.now();
    return stamped;
  }

  /** Records and publishes an event {@link stamp} made. */
  emitStamped(stamped: StatecrewEvent): void {
    this.reduce(stamped);
    if (this.#subject.observed) this.#subject.next(stamped);
  }

  /**
   * Publishes an event its emitter already recorded itself and built stamped (a hot path that feeds
   * the recorder directly and builds the event, `runId` and `at` included, only when {@link observed}).
   */
  publish(event: StatecrewEvent): void {
    this.#subject.next(event);
  }

  /**
   * Publishes an event another run stamped and recorded (a crew inside a flow step), tagged with the
   * step; this run's reducer does not see it.
   */
  relay(event: StatecrewEvent, step: string): void {
    this.#subject.next({ ...event, step });
  }

  /** Ends `events$`. */
  complete(): void {
    this.#subject.complete();
  }
}
