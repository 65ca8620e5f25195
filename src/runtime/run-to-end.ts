import { type AnyActorRef, toPromise } from 'xstate';
import { StatecrewError } from '../errors.js';
import type { RunStatus } from '../types.js';
import type { EventHub } from './event-hub.js';

/** What `runToEnd` drives: a created (not started) supervisor and what belongs to its run. */
export interface RunParts<T> {
  supervisor: AnyActorRef;
  hub: EventHub;
  /** The node runner: hands over live runs on abort, and is disposed at the end. */
  runner: { takeAll(): AnyActorRef[]; dispose(): void };
  signal: AbortSignal | undefined;
  /** How many nodes the run has, for `run.started`. */
  nodes: number;
  process: string;
  /** Sent to the supervisor right after it starts, if it waits for one (a flow's `START`). */
  startEvent?: { type: 'START' };
  /** The result from the supervisor's output; throws to reject the run. */
  complete(output: unknown): { result: T; status: RunStatus; totalTimeMs: number };
  /** Forgets the run's handlers. */
  release(): void;
}

/**
 * Runs a supervisor to its end, the same way for crews and flows: it starts on the next microtask (so
 * subscribers attached to `events$` right after the run began see every event); its output becomes
 * the result (`run.completed`); an error, a rejection or the signal's abort ends it with `run.failed`,
 * stopping the node runs in flight through the supervisor (`ABORT`). Either way the event stream
 * completes and the run's handlers are released.
 */
export function runToEnd<T>(parts: RunParts<T>): Promise<T> {
  const { supervisor, hub, runner, signal } = parts;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const end = () => {
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      hub.complete();
      runner.dispose();
      parts.release();
    };
    const fail = (error: unknown) => {
      if (settled) return;
      if (supervisor.getSnapshot().status === 'active')
        supervisor.send({ type: 'ABORT', runs: runner.takeAll() });
      const code = error instanceof StatecrewError ? { code: error.code } : {};
      hub.emit({
        type: 'run.failed',
        error: error instanceof Error ? error.message : String(error),
        ...code,
      });
      end();
      reject(error);
    };
    const onAbort = () => fail(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });

    toPromise(supervisor).then((output: unknown) => {
      if (settled) return;
      let completed: { result: T; status: RunStatus; totalTimeMs: number };
      try {
        completed = parts.complete(output);
      } catch (error) {
        fail(error);
        return;
      }
      hub.emit({ type: 'run.completed', status: completed.status, totalTimeMs: completed.totalTimeMs });
      end();
      resolve(completed.result);
    }, fail);

    queueMicrotask(() => {
      if (settled) return;
      hub.emit({ type: 'run.started', process: parts.process, nodes: parts.nodes });
      supervisor.start();
      if (parts.startEvent !== undefined) supervisor.send(parts.startEvent);
    });
  });
}
