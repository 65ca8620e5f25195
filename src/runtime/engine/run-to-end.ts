import { type AnyActorRef, toPromise } from 'xstate';
import { describeThrown, RunAbortedError, StatecrewError } from '../../errors.js';
import type { RunStatus } from '../../types.js';
import type { EventHub } from './event-hub.js';

/** What `runToEnd` drives: a created (not started) supervisor and what belongs to its run. */
export interface RunParts<T> {
  supervisor: AnyActorRef;
  hub: EventHub;
  /** The node runner: hands over live runs on abort, and is disposed at the end. */
  runner: { takeAll(): AnyActorRef[]; dispose(): void; whenIdle(): Promise<void> };
  signal: AbortSignal | undefined;
  /** How many nodes the run has, for `run.started`. */
  nodes: number;
  process: string;
  /** Sent to the supervisor right after it starts, if it waits for one (a flow's `START`). */
  startEvent?: { type: 'START' };
  /** The result from the supervisor's output; throws to reject the run. */
  complete(output: unknown): { result: T; status: RunStatus | 'paused'; totalTimeMs: number };
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
  const { supervisor, hub, runner, signal } = parts;
  let started = false;
  /** The stage in progress: the supervisor, then the epilogue's. */
  let current: RunStage = { supervisor, runner };
  const result = new Promise<T>((resolve, reject) => {
    let settled = false;
    const end = () => {
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      hub.complete();
      runner.dispose();
      if (current.runner !== runner) current.runner.dispose();
      parts.release();
    };
    const stop = () => {
      if (started && current.supervisor.getSnapshot().status === 'active')
        current.supervisor.send({ type: 'ABORT', runs: current.runner.takeAll() });
    };
    const fail = (error: unknown) => {
      if (settled) return;
      stop();
      hub.emit({
        type: 'run.failed',
        error: describeThrown(error),
        ...(error instanceof StatecrewError ? { code: error.code } : {}),
      });
      end();
      reject(error);
    };
    /** Set once the signal aborted: the run ends as aborted, whatever its supervisor does next. */
    let aborting = false;
    const onAbort = () => {
      if (settled || aborting) return;
      aborting = true;
      stop();
      const output: unknown = started ? supervisor.getSnapshot().output : undefined;
      const partial = parts.partial(output);
      const error = new RunAbortedError(hub.runId, signal?.reason, partial);
      const kept = parts.keepAborted?.(partial);
      if (kept === undefined) fail(error);
      else
        kept.then(
          () => fail(error),
          () => fail(error),
        );
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    parts.halted?.catch(fail);

    // The supervisor may end while the runner still records runs it blocked: the result waits for them.
    const ended = toPromise(supervisor).then(async (output: unknown) => {
      await runner.whenIdle();
      const stage = settled || aborting ? undefined : parts.epilogue?.(output);
      if (stage !== undefined) {
        current = stage;
        stage.supervisor.start();
        await toPromise(stage.supervisor);
        await stage.runner.whenIdle();
      }
      return output;
    });
    ended.then(
      async (output: unknown) => {
        if (settled || aborting) return;
        let completed: { result: T; status: RunStatus | 'paused'; totalTimeMs: number };
        try {
          completed = parts.complete(output);
          await parts.finish?.(completed.result);
        } catch (error) {
          fail(error);
          return;
        }
        if (settled || aborting) return;
        hub.emit({ type: 'run.completed', status: completed.status, totalTimeMs: completed.totalTimeMs });
        end();
        resolve(completed.result);
      },
      (error: unknown) => {
        if (!aborting) fail(error);
      },
    );

    const begin = () => {
      if (settled || aborting) return;
      if (signal?.aborted) {
        onAbort();
        return;
      }
      hub.emit({ type: 'run.started', process: parts.process, nodes: parts.nodes });
      started = true;
      supervisor.start();
      if (parts.startEvent !== undefined) supervisor.send(parts.startEvent);
    };
    if (parts.ready === undefined) queueMicrotask(begin);
    else parts.ready.then(begin, fail);
  });
  result.catch(() => {});
  return result;
}
