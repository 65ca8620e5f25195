import { StoreRequiredError } from '../../errors.js';
import type { Store } from '../../stores/store.js';
import type { MemoryEntry } from '../../types.js';
import { abandonThreadEntry, checkThread, claimThread, threadRuns } from '../durable/threads.js';
import type { Clock } from '../engine/clock.js';
import { readTaskResult } from './crew-store.js';
import { memoryEntry } from './memory.js';
import { SUMMARY_NODE } from './summary.js';

/** A crew run on a thread: its thread, and the results of the thread's earlier runs once its claim read them. */
export interface CrewThread {
  thread: string;
  /** The completed task results of the thread's earlier runs, oldest run first (filled by `claim`). */
  readonly earlier: MemoryEntry[];
  /** Takes the thread's next entry for the run (`thread_busy` while its latest run is running or paused). */
  claim(): Promise<void>;
  /** Frees the entry again: the run's id was another run's. */
  abandon(): Promise<void>;
}

/** What a run on a thread needs to know of itself. */
export interface CrewThreadRun {
  crew: string;
  id: string;
  store: Store | undefined;
  clock: Clock;
  leaseMs: number;
  /** Whether the crew keeps an execution memory (else the earlier results are not read). */
  memory: boolean;
}

/**
 * A crew run's thread, checked before anything runs (`invalid_option` for a bad name,
 * `store_required` without a store); undefined for a run on no thread.
 */
export function crewThread(thread: unknown, run: CrewThreadRun): CrewThread | undefined {
  if (thread === undefined) return undefined;
  const where = `Crew "${run.crew}" kickoff`;
  checkThread(where, thread);
  const { store } = run;
  if (store === undefined) throw new StoreRequiredError(where, 'run on a thread');
  const earlier: MemoryEntry[] = [];
  return {
    thread,
    earlier,
    async claim() {
      await claimThread(store, thread, run.id, run.clock, where, run.leaseMs);
      if (run.memory) earlier.push(...(await earlierResults(store, thread, run.id)));
    },
    abandon: () => abandonThreadEntry(store, thread, run.id),
  };
}

/** The completed task results of `thread`'s runs but `id`, as memory entries: oldest run first, each in its commit order. */
async function earlierResults(store: Store, thread: string, id: string): Promise<MemoryEntry[]> {
  const runs = (await threadRuns(store, thread)).filter((head) => head.kind === 'crew' && head.id !== id);
  const entries: MemoryEntry[] = [];
  for (const head of runs) {
    for (const record of await store.list('crew_task_results', head.id)) {
      const result = readTaskResult(record.value);
      if (result.status !== 'completed' || result.nodeId === SUMMARY_NODE || result.raw === undefined)
        continue;
      const output = { name: result.name, agent: result.agent, raw: result.raw };
      const entry = memoryEntry(
        result.nodeId,
        'structured' in result ? { ...output, structured: result.structured } : output,
      );
      entries.push({ ...entry, runId: head.id });
    }
  }
  return entries;
}
