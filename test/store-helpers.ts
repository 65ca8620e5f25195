import { MemoryStore, StatecrewError } from '../src/index.js';
import type { RunCommit, Store } from '../src/stores/store.js';

/**
 * A memory store whose commits land only when the test says so (`land`), oldest first; `commits`
 * lists each commit's records as `<collection>/<key>`, in call order, and `whenCommits(n)` resolves
 * once n were called — tests await state, never time.
 */
export class GatedStore extends MemoryStore {
  readonly commits: string[][] = [];
  readonly #waiting: (() => void)[] = [];
  readonly #arrivals: (() => void)[] = [];

  override async commit(id: string, commit: RunCommit): Promise<boolean> {
    this.commits.push(commit.writes.map((w) => `${w.collection}/${w.key}`));
    for (const arrived of this.#arrivals.splice(0)) arrived();
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
    return super.commit(id, commit);
  }

  /** Resolves once `count` commits were called. */
  whenCommits(count: number): Promise<void> {
    if (this.commits.length >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => (this.commits.length >= count ? resolve() : this.#arrivals.push(check));
      this.#arrivals.push(check);
    });
  }

  /** Lets the oldest waiting commit land. */
  land(): void {
    const next = this.#waiting.shift();
    if (next === undefined) throw new Error('No commit is waiting');
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

/**
 * A store that does what `store` does, except for the methods `overrides` gives: how tests make a
 * real store fail a write, lose a document or count commits.
 */
export function wrapStore(store: Store, overrides: Partial<Omit<Store, 'kind'>>): Store {
  return {
    kind: store.kind,
    put: (...args) => store.put(...args),
    insert: (...args) => store.insert(...args),
    get: (...args) => store.get(...args),
    list: (...args) => store.list(...args),
    executions: (...args) => store.executions(...args),
    createRun: (...args) => store.createRun(...args),
    readRun: (...args) => store.readRun(...args),
    claimRun: (...args) => store.claimRun(...args),
    renewLease: (...args) => store.renewLease(...args),
    commit: (...args) => store.commit(...args),
    listRuns: (...args) => store.listRuns(...args),
    prune: (...args) => store.prune(...args),
    close: () => store.close(),
    ...overrides,
  };
}
