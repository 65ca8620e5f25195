import type { Observable } from 'rxjs';
import type { Store } from '../../stores/store.js';
import type { StatecrewEvent } from '../../types.js';
import type { StoredEvent } from './event-record.js';

/** What a follower reads of the kept events of a run this process runs now (an `EventJournal`). */
export interface LiveJournal {
  /** The number of the first event it took: what comes before is in the store. */
  readonly firstSeq: number;
  /** The number of the last event it took. */
  readonly lastSeq: number;
  /** Whether it took the run's last event. */
  readonly closed: boolean;
  /** The events it numbered after `after`, in order. */
  since(after: number): readonly StoredEvent[];
  /** Each kept event with its number, as it is taken; completes when the run ends. */
  readonly numbered$: Observable<StoredEvent>;
  /** Each live-only event (a text delta) as the run publishes it; completes when the run ends. */
  readonly live$: Observable<StatecrewEvent>;
}

/** The journals of the runs this process runs now, by store and run id. */
const journals = new WeakMap<Store, Map<string, LiveJournal>>();
/** Who waits for a run's journal to be registered, by store and run id. */
const waiters = new WeakMap<Store, Map<string, Set<() => void>>>();

/** Says that `journal` numbers the events of run `id` of `store` here, from now until its events end. */
export function registerJournal(store: Store, id: string, journal: LiveJournal): void {
  let byId = journals.get(store);
  if (byId === undefined) {
    byId = new Map();
    journals.set(store, byId);
  }
  byId.set(id, journal);
  const waiting = waiters.get(store)?.get(id);
  waiters.get(store)?.delete(id);
  for (const wake of waiting ?? []) wake();
}

/** `registered` resolves once a journal of run `id` of `store` is registered here; `cancel` stops waiting. */
export function whenJournal(store: Store, id: string): { registered: Promise<void>; cancel(): void } {
  let byId = waiters.get(store);
  if (byId === undefined) {
    byId = new Map();
    waiters.set(store, byId);
  }
  const waiting = byId.get(id) ?? new Set<() => void>();
  byId.set(id, waiting);
  let wake: () => void = () => {};
  const registered = new Promise<void>((resolve) => {
    wake = resolve;
    waiting.add(resolve);
  });
  return {
    registered,
    cancel: () => {
      waiting.delete(wake);
      if (waiting.size === 0 && byId.get(id) === waiting) byId.delete(id);
    },
  };
}

/** Forgets `journal` (unless another took its place since). */
export function forgetJournal(store: Store, id: string, journal: LiveJournal): void {
  const byId = journals.get(store);
  if (byId?.get(id) === journal) byId.delete(id);
}

/** The journal of run `id` of `store`, when this process runs it now and it keeps its events. */
export function liveJournal(store: Store, id: string): LiveJournal | undefined {
  return journals.get(store)?.get(id);
}
