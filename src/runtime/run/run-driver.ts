import { type AnyActorRef, toPromise } from 'xstate';
import { describeThrown, isStatecrewError, RunAbortedError, RunSuspendedError } from '../../errors.js';
import type { RunStatus, StatecrewEvent } from '../../types.js';
import { type GracefulStop, isGracefulStop } from '../durable/graceful-stop.js';
import type { RunEvents } from './run-events.js';

/** What `runToEnd` drives: a created (not started) supervisor and what belongs to its run. */
export interface RunParts<T> {
  supervisor: AnyActorRef;
  hub: RunEvents;
  /**
   * The node runner: hands over live runs on abort, starts nothing more while the run is suspended
   * (`drain`, then `whenQuiet` once no attempt is under way), and is disposed at the end.
   */
  runner: {
    takeAll(): AnyActorRef[];
    dispose(): void;
    whenIdle(): Promise<void>;
    drain(): void;
    whenQuiet(): Promise<void>;
    inFlight(): string[];
  };
  signal: AbortSignal | undefined;
  /** How many nodes the run has, for `run.started`. */
  nodes: number;
  /** The crew's or flow's name, for `run.started`. */
  name: string;
  process: string;
  /** Called right after `run.started`, before the supervisor starts: the run's own first words (`run.warning`). */
  started?(): void;
  /** Sent to the supervisor right after it starts, if it waits for one (a flow's `START`). */
  startEvent?: { type: 'START' };
  /** The result from the supervisor's output (a big one may be built in slices); throws or rejects to reject the run. */
  complete(output: unknown): Completed<T> | Promise<Completed<T>>;
  /** Must resolve before the supervisor starts (claiming the run's id in a store); a rejection fails the run. */
  ready?: Promise<void>;
  /** Rejects when the run must stop at once (a failed or refused write): the run fails with its error. */
  halted?: Promise<never>;
  /** Work that must be done before the run resolves with `result` (writing its document to a store). */
  finish?(result: T): Promise<void>;
  /** The result so far of an aborted run, from its stopped supervisor's output (undefined if it never started). */
  partial(output: unknown): T;
  /** Keeps an aborted run in its store (as aborted, to be resumed); the rejection waits for it. Must not reject. */
  keepAborted?(partial: T): Promise<void>;
  /**
   * Gives a suspended run's lease up once its commits landed (or `stop`'s grace ended), its head left
   * as it is, for any runner to resume. Must not reject. Absent for a run without a store: a
   * `GracefulStop` aborts it.
   */
  letGo?(stop: GracefulStop): Promise<void>;
  /** Forgets the run's handlers. */
  release(): void;
  /**
   * A last stage, run once the supervisor ended (its blocked runs recorded) and before the result: a
   * second supervisor with its own runner (a crew's summary node), created, not started, from the
   * first's output; undefined when there is none. An abort then stops it.
   */
  epilogue?(output: unknown): RunStage | undefined;
}

/** A supervisor and the runner of its node runs. */
export interface RunStage {
  supervisor: AnyActorRef;
  runner: RunParts<unknown>['runner'];
}

/**
 * Runs a supervisor to its end, the same way for crews and flows: it starts on the next microtask (so
 * subscribers attached to `events$` right after the run began see every event); its output becomes
 * the result (`run.completed`); an error or a rejection ends it with `run.failed`, and so does the
 * signal's abort, which stops the node runs in flight through the supervisor (`ABORT`) and rejects
 * with `RunAbortedError` holding the partial result. Either way the event stream completes and the
 * run's handlers are released. The returned promise is marked handled: a run whose result nobody
 * awaits reports its failure as `run.failed`, never as an unhandled rejection.
 */
export function runToEnd<T>(parts: RunParts<T>): Promise<T> {
  const result = new Promise<T>((resolve, reject) => new RunDriver(parts, resolve, reject).drive());
  result.catch(() => {});
  return result;
}

/** What `complete` makes of a supervisor's output. */
interface Completed<T> {
  result: T;
  status: RunStatus | 'paused';
  totalTimeMs: number;
}

/**
 * One run driven to its end: the one place that holds where it got to (started, aborting, settled,
 * the stage in progress) and the settling of its result.
 */
class RunDriver<T> {
  readonly #parts: RunParts<T>;
  readonly #resolve: (result: T) => void;
  readonly #reject: (error: unknown) => void;
  /** The signal's listener, kept to be removed when the run ends. */
  readonly #onAbort = () => this.#stopped();
  #started = false;
  /**
   * Set once the signal aborted, or a suspension is letting the run go: the run ends so, whatever its
   * supervisor does next.
   */
  #aborting = false;
  /** The graceful stop the run is being suspended for: no node starts, the ones in flight settle. */
  #suspending: GracefulStop | undefined;
  /** Set once the run's result is being made: a suspension then lets it end as it would have. */
  #completing = false;
  #settled = false;
  /** The stage in progress: the supervisor, then the epilogue's. */
  #current: RunStage;

  constructor(parts: RunParts<T>, resolve: (result: T) => void, reject: (error: unknown) => void) {
    this.#parts = parts;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#current = { supervisor: parts.supervisor, runner: parts.runner };
  }

  /** Listens for the abort, the halt and the supervisor's end; begins once the run is ready. */
  drive(): void {
    const parts = this.#parts;
    parts.signal?.addEventListener('abort', this.#onAbort, { once: true });
    // A halt while the run is being aborted (its last write failed) leaves the abort to end it.
    parts.halted?.catch((error: unknown) => {
      if (!this.#aborting) this.#fail(error);
    });
    toPromise(parts.supervisor)
      .then((output: unknown) => this.#runEpilogue(output))
      .then(
        (output: unknown) => this.#complete(output),
        (error: unknown) => {
          if (!this.#aborting) this.#fail(error);
        },
      );
    if (parts.ready === undefined) queueMicrotask(() => this.#begin());
    else
      parts.ready.then(
        () => this.#begin(),
        (error: unknown) => this.#fail(error),
      );
  }

  /** Starts the supervisor (`run.started`), unless the run already ended or its signal aborted. */
  #begin(): void {
    if (this.#settled || this.#aborting) return;
    const { signal, supervisor, startEvent } = this.#parts;
    if (signal?.aborted) {
      this.#stopped();
      return;
    }
    this.#parts.hub.emit({
      type: 'run.started',
      name: this.#parts.name,
      process: this.#parts.process,
      nodes: this.#parts.nodes,
    });
    this.#parts.started?.();
    this.#started = true;
    supervisor.start();
    if (startEvent !== undefined) supervisor.send(startEvent);
  }

  /**
   * Once the supervisor ended: waits for the runs its runner still records (runs it blocked), then
   * runs the epilogue's stage, if any, to its end.
   */
  async #runEpilogue(output: unknown): Promise<unknown> {
    await this.#parts.runner.whenIdle();
    // A suspended run starts no further stage: it goes on with it on resume.
    if (this.#suspending !== undefined && this.#parts.epilogue !== undefined) {
      await this.#letGo(this.#suspending);
      return output;
    }
    const stage = this.#settled || this.#aborting ? undefined : this.#parts.epilogue?.(output);
    if (stage !== undefined) {
      this.#current = stage;
      stage.supervisor.start();
      await toPromise(stage.supervisor);
      await stage.runner.whenIdle();
    }
    return output;
  }

  /** Resolves with the result of the supervisor's output (`run.completed`), once it is finished. */
  async #complete(output: unknown): Promise<void> {
    if (this.#settled || this.#aborting) return;
    this.#completing = true;
    let completed: Completed<T>;
    let last: StatecrewEvent;
    try {
      completed = await this.#parts.complete(output);
      if (this.#settled || this.#aborting) return;
      const { status, totalTimeMs } = completed;
      // Kept before the last write, which carries it; published once that write is done.
      last = this.#parts.hub.closing({ type: 'run.completed', status, totalTimeMs });
      await this.#parts.finish?.(completed.result);
    } catch (error) {
      this.#fail(error);
      return;
    }
    if (this.#settled || this.#aborting) return;
    this.#parts.hub.closed(last);
    this.#end();
    this.#resolve(completed.result);
  }

  /** The signal aborted: with a {@link GracefulStop} (and a store), the run is suspended; else aborted. */
  #stopped(): void {
    const reason: unknown = this.#parts.signal?.reason;
    if (isGracefulStop(reason) && this.#parts.letGo !== undefined) this.#suspend(reason);
    else this.#abort();
  }

  /**
   * A graceful stop: no node starts any more; once the attempts in flight settled and their commits
   * landed, or the grace period ended, the run lets its lease go. A supervisor that ends meanwhile
   * ends the run as it would have (its last write included).
   */
  #suspend(stop: GracefulStop): void {
    if (this.#settled || this.#aborting || this.#suspending !== undefined) return;
    this.#suspending = stop;
    if (!this.#started) {
      void this.#letGo(stop);
      return;
    }
    const { runner } = this.#current;
    runner.drain();
    const drained = runner.whenQuiet().then(() => runner.whenIdle());
    void Promise.race([drained, stop.expired]).then(() => this.#letGo(stop));
  }

  /**
   * Ends a suspended run: stops what is still in flight (abandoned: it runs again on resume), gives
   * the lease up with the head left as it is (`run.suspended`), and rejects with `RunSuspendedError`.
   */
  async #letGo(stop: GracefulStop): Promise<void> {
    if (this.#settled || this.#aborting || this.#completing) return;
    this.#aborting = true;
    const parts = this.#parts;
    const abandoned = this.#started ? this.#current.runner.inFlight() : [];
    this.#stop();
    const error = new RunSuspendedError(parts.hub.runId, stop, abandoned);
    const last = parts.hub.closing({ type: 'run.suspended', reason: stop.message, abandoned });
    await parts.letGo?.(stop);
    this.#fail(error, last);
  }

  /** The signal aborted: keeps the partial result (if the run is kept), then fails with `RunAbortedError`. */
  #abort(): void {
    if (this.#settled || this.#aborting) return;
    this.#aborting = true;
    this.#stop();
    const parts = this.#parts;
    const output: unknown = this.#started ? parts.supervisor.getSnapshot().output : undefined;
    const partial = parts.partial(output);
    const error = new RunAbortedError(parts.hub.runId, parts.signal?.reason, partial);
    if (parts.keepAborted === undefined) {
      this.#fail(error);
      return;
    }
    const last = this.#failedEvent(error);
    parts.keepAborted(partial).then(
      () => this.#fail(error, last),
      () => this.#fail(error, last),
    );
  }

  /**
   * Ends the run with `run.failed` (`last`: the one {@link closing} heard already) and rejects with
   * `error` (the first failure wins).
   */
  #fail(error: unknown, last?: StatecrewEvent): void {
    if (this.#settled) return;
    this.#stop();
    this.#parts.hub.closed(last ?? this.#failedEvent(error));
    this.#end();
    this.#reject(error);
  }

  /** The `run.failed` event of `error`, stamped and kept (see `RunEvents.closing`). */
  #failedEvent(error: unknown): StatecrewEvent {
    return this.#parts.hub.closing({
      type: 'run.failed',
      error: describeThrown(error),
      ...(isStatecrewError(error) ? { code: error.code } : {}),
    });
  }

  /** Stops the stage in progress, handing its live runs over to its supervisor (`ABORT`). */
  #stop(): void {
    const current = this.#current;
    if (this.#started && current.supervisor.getSnapshot().status === 'active')
      current.supervisor.send({ type: 'ABORT', runs: current.runner.takeAll() });
  }

  /** Settles the run: stops listening, completes the event stream, disposes of its runners, releases it. */
  #end(): void {
    const { signal, hub, runner } = this.#parts;
    this.#settled = true;
    signal?.removeEventListener('abort', this.#onAbort);
    hub.complete();
    runner.dispose();
    if (this.#current.runner !== runner) this.#current.runner.dispose();
    this.#parts.release();
  }
}
