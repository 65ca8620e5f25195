import type { PendingStep } from '../../machines/flow/waits.js';

/**
 * The mutable side of a flow run's wiring, in one place. The keeper is made before the round driver
 * it asks what waits, so it reaches the driver through here; the keeper halts the run from here
 * (a failed commit, a lost lease); and an abort reads here whether the run holds its id yet.
 */
export class FlowRunLinks {
  /** Rejects with the error the run must stop with at once. */
  readonly halted: Promise<never>;
  #halt: (error: unknown) => void = () => {};
  #waiting: () => PendingStep[] = () => [];
  #claimed = false;

  constructor() {
    this.halted = new Promise<never>((_, reject) => {
      this.#halt = reject;
    });
  }

  /** Stops the run with `error`. */
  halt(error: unknown): void {
    this.#halt(error);
  }

  /** The human steps the run waits for, as its round driver reports them (none before it exists). */
  waiting(): PendingStep[] {
    return this.#waiting();
  }

  /** Connects the round driver whose waiting human steps `waiting` reports. */
  connect(driver: { waiting(): PendingStep[] }): void {
    this.#waiting = () => driver.waiting();
  }

  /** Whether this run holds its id in the store (its claim, or a resumed run's first header, landed). */
  get claimed(): boolean {
    return this.#claimed;
  }

  /** Records that the run's claim, or a resumed run's first header, landed. */
  markClaimed(): void {
    this.#claimed = true;
  }
}
