import { InternalError } from '../../errors.js';

const registries = new Set<{ readonly size: number }>();

/** Runs registered in every registry: 0 once every run has ended (a leak shows here). */
export function liveRuns(): number {
  let total = 0;
  for (const registry of registries) total += registry.size;
  return total;
}

/**
 * Per-run handlers of machines that are provided once, not once per run. XState's `provide` rebuilds
 * the whole machine (about as costly as a run's first node), so a run registers its handlers under a
 * key that travels in the machine's input and context, and the implementations look them up.
 */
export class RunRegistry<T> {
  readonly #handlers = new Map<string, T>();
  #next = 0;

  constructor() {
    registries.add(this);
  }

  /** How many runs are registered. */
  get size(): number {
    return this.#handlers.size;
  }

  /** Registers `handlers` under a new key. */
  register(handlers: T): string {
    this.#next += 1;
    const key = `run-${this.#next}`;
    this.#handlers.set(key, handlers);
    return key;
  }

  /** The handlers registered under `key`. */
  get(key: string): T {
    const handlers = this.#handlers.get(key);
    if (handlers === undefined)
      throw new InternalError('RunRegistry.get', `No run "${key}" is registered`, { key });
    return handlers;
  }

  /** The handlers registered under `key`, if they still are. */
  find(key: string): T | undefined {
    return this.#handlers.get(key);
  }

  /** Forgets `key` (when its run ends). */
  delete(key: string): void {
    this.#handlers.delete(key);
  }
}
