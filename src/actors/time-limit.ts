/** Timers a time limit runs on: the host's, or a run's clock (a `Clock` has both). */
export interface LimitTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The host's timers. */
const HOST_TIMERS: LimitTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Runs `run` under a time limit: with a signal of its own that aborts when `signal` does (with its
 * reason) or when `timeoutMs` passes (with `expired()`); settles as soon as it aborts, even if the work
 * ignores its signal. A task attempt's `task_timeout` and a flow step's `step_timeout` both run here.
 */
export async function withTimeLimit<T>(
  signal: AbortSignal,
  timeoutMs: number,
  expired: () => Error,
  run: (signal: AbortSignal) => Promise<T>,
  timers: LimitTimers = HOST_TIMERS,
): Promise<T> {
  signal.throwIfAborted();
  const controller = new AbortController();
  const forward = () => controller.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  const timer = timers.setTimeout(() => controller.abort(expired()), timeoutMs);
  try {
    return await Promise.race([
      run(controller.signal),
      new Promise<never>((_, reject) =>
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }),
      ),
    ]);
  } finally {
    timers.clearTimeout(timer);
    signal.removeEventListener('abort', forward);
  }
}
