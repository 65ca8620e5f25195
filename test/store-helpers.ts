import { MemoryStore, StatecrewError } from '../src/index.js';
import type { JsonValue, StoreCollection } from '../src/stores/store.js';

/**
 * A memory store whose `put`s land only when the test says so (`land`), oldest first; `puts` lists
 * them as `<collection>/<key>` in call order, and `whenPuts(n)` resolves once n were called — tests
 * await state, never time.
 */
export class GatedStore extends MemoryStore {
  readonly puts: string[] = [];
  readonly #waiting: (() => void)[] = [];
  readonly #arrivals: (() => void)[] = [];

  override async put(collection: StoreCollection, executionId: string, key: string, value: JsonValue) {
    this.puts.push(`${collection}/${key}`);
    for (const arrived of this.#arrivals.splice(0)) arrived();
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
    return super.put(collection, executionId, key, value);
  }

  /** Resolves once `count` puts were called. */
  whenPuts(count: number): Promise<void> {
    if (this.puts.length >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => (this.puts.length >= count ? resolve() : this.#arrivals.push(check));
      this.#arrivals.push(check);
    });
  }

  /** Lets the oldest waiting put land. */
  land(): void {
    const next = this.#waiting.shift();
    if (next === undefined) throw new Error('No put is waiting');
    next();
  }
}

/** The code a promise rejects with (a `StatecrewError`'s); fails if it resolves or throws anything else. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof StatecrewError) return error.code;
    throw error;
  }
  throw new Error('expected a rejection');
}
