import type { StatecrewError } from '../errors.js';
import { GracefulStop } from '../runtime/durable/graceful-stop.js';
import { oneLine, shellWord } from './output.js';

/** The signals that stop a command's run cleanly, with the exit code of each (128 + its number). */
export const STOP_SIGNALS = { SIGINT: 130, SIGTERM: 143 } as const;

/** A signal that stops a command's run cleanly: Ctrl-C, or a `kill` (a container or service stopping). */
export type StopSignal = keyof typeof STOP_SIGNALS;

/** The reason a run is aborted with when the command receives a stop signal; it names the signal. */
export class InterruptedError extends Error {
  /** The signal received. */
  readonly signal: StopSignal;

  constructor(signal: StopSignal) {
    super(signal === 'SIGINT' ? 'interrupted by SIGINT (Ctrl-C)' : 'terminated by SIGTERM');
    this.name = 'InterruptedError';
    this.signal = signal;
  }
}

/** What signals are heard from: `process`, or a test's emitter. */
export interface SignalSource {
  on(event: StopSignal, listener: () => void): unknown;
  off(event: StopSignal, listener: () => void): unknown;
}

/** The stop signals a running command listens for, as an abort signal for its run. */
export interface Interrupts {
  /** Aborted (with an {@link InterruptedError}) by the first SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  /** The exit code for a run this aborted: 130 after SIGINT, 143 after SIGTERM. */
  exitCode(): number;
  /** Stops listening: the signals' default behaviour comes back. */
  dispose(): void;
}

/**
 * Listens for SIGINT and SIGTERM while a command runs something: the first aborts {@link Interrupts.signal}
 * with an {@link InterruptedError} naming it (Ctrl-C: the run is kept as aborted) — or, for SIGTERM
 * when `graceMs` is given, with a {@link GracefulStop} of that grace (the run is suspended: kept
 * `running` with no lease, for a runner or `statecrew resume`). A second signal ends a graceful
 * stop's grace at once; any other ends the process at once with that signal's exit code.
 */
export function watchInterrupts(
  source: SignalSource = process,
  exit: (code: number) => void = (code) => process.exit(code),
  graceMs?: number,
): Interrupts {
  const controller = new AbortController();
  let received: StopSignal | undefined;
  let hurried = false;
  const listeners = (Object.keys(STOP_SIGNALS) as StopSignal[]).map((signal) => {
    const listener = () => {
      const reason: unknown = controller.signal.reason;
      if (reason instanceof GracefulStop && !hurried) {
        hurried = true;
        reason.now();
        return;
      }
      if (controller.signal.aborted) {
        exit(STOP_SIGNALS[signal]);
        return;
      }
      received = signal;
      controller.abort(
        signal === 'SIGTERM' && graceMs !== undefined
          ? new GracefulStop(graceMs, 'terminated by SIGTERM')
          : new InterruptedError(signal),
      );
    };
    source.on(signal, listener);
    return { signal, listener };
  });
  return {
    signal: controller.signal,
    exitCode: () => STOP_SIGNALS[received ?? 'SIGINT'],
    dispose() {
      for (const { signal, listener } of listeners) source.off(signal, listener);
      const reason: unknown = controller.signal.reason;
      if (reason instanceof GracefulStop) reason.now();
    },
  };
}

/** A stopped run's reason on one line, and `statecrew resume`'s extra arguments as shell words. */
function stopWords(error: StatecrewError, resumeArgs: readonly string[]): { cause: string; args: string } {
  const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
  return { cause: oneLine(cause), args: resumeArgs.map((arg) => ` ${shellWord(arg)}`).join('') };
}

/**
 * What a command prints when a stop signal aborted run `id`: one error line naming the reason, and
 * how to go on (`resumeArgs`: the options `statecrew resume <id>` needs besides the id, such as `--store`).
 */
export function abortedReport(
  id: string,
  error: StatecrewError<'aborted'>,
  resumeArgs: readonly string[],
): string {
  const { cause, args } = stopWords(error, resumeArgs);
  return (
    `statecrew: run ${id} aborted: ${cause} (aborted)\n` +
    `  kept in the store; go on with: statecrew resume ${id}${args}\n`
  );
}

/**
 * What a command prints when SIGTERM suspended run `id`: one error line naming why, and how to go on
 * (`resumeArgs`: the options `statecrew resume <id>` needs besides the id, such as `--store`).
 */
export function suspendedReport(
  id: string,
  error: StatecrewError<'suspended'>,
  resumeArgs: readonly string[],
): string {
  const { cause, args } = stopWords(error, resumeArgs);
  return (
    `statecrew: run ${id} suspended: ${cause} (suspended)\n` +
    `  kept in the store, running with no owner: a statecrew runner resumes it, or go on with: statecrew resume ${id}${args}\n`
  );
}

/**
 * Resolves with the first SIGINT or SIGTERM a serving command (serve, worker, runner) receives; each
 * later one calls `again` (a second signal during the graceful stop ends its grace at once).
 */
export function untilStopSignal(again: () => void, source: SignalSource = process): Promise<StopSignal> {
  // A listener alone keeps no process alive: a runner with nothing to do would end at once.
  const alive = setInterval(() => {}, 2 ** 30);
  return new Promise((resolve) => {
    let received = false;
    for (const signal of Object.keys(STOP_SIGNALS) as StopSignal[]) {
      source.on(signal, () => {
        if (received) again();
        received = true;
        clearInterval(alive);
        resolve(signal);
      });
    }
  });
}
