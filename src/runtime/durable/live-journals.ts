import type { Observable } from 'rxjs';
import { processWide } from '../../process-wide.js';
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

/** The journals of the runs this process runs now, and who waits for one, by store and run id. */
interface LiveJournals {
  readonly journals: WeakMap<Store, Map<string, LiveJournal>>;
  readonly waiters: WeakMap<Store, Map<string, Set<() => void>>>;
}

/**
 * Where the journals live: on `globalThis`, so every copy of the package loaded in one process shares
 * them — a server of one copy follows live the runs of definitions built with another (a module that
 * imports its own `statecrew`). The key names the shape of `LiveJournals` and of `LiveJournal`: a
 * change to either takes a new key, and copies of different shapes then keep theirs apart (a
 * follower of the other copy's runs reads the store instead).
 */
const { journals, waiters } = processWide<LiveJournals>('liveJournals.v2', () => ({
  journals: new WeakMap(),
  waiters: new WeakMap(),
}));

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
