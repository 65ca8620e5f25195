/** Why a tool call was given up on: it went `ms` without an answer or a progress notification. */
export class CallTimedOut extends Error {
  override readonly name = 'CallTimedOut';
  constructor(readonly ms: number) {
    super(`no answer and no progress for ${ms} ms`);
  }
}

/**
 * A tool call's time limit (`callTimeoutMs`): `signal` aborts with {@link CallTimedOut} once the call
 * went `ms` without a word from the server; {@link CallDeadline.restart} (on each progress
 * notification) gives it `ms` again. `0`: no limit, it never aborts.
 */
export class CallDeadline {
  readonly #controller = new AbortController();
  readonly #ms: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(ms: number) {
    this.#ms = ms;
    this.restart();
  }

  /** Aborts once the limit passed. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Starts the limit again, from now. */
  restart(): void {
    if (this.#ms === 0 || this.#controller.signal.aborted) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#controller.abort(new CallTimedOut(this.#ms)), this.#ms);
  }

  /** The call ended: the limit no longer runs. */
  stop(): void {
    clearTimeout(this.#timer);
  }
}
