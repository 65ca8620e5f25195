import { ThreadBusyError } from '../../errors.js';
import type { RunHead, Store, StoredRecord } from '../../stores/store.js';
import type { Clock } from '../engine/clock.js';
import { checkRunId } from './claim.js';
import { DEFAULT_LEASE_MS } from './run-owner.js';

/** How many digits a run's number in its thread has: its key in `run_threads` sorts as it counts. */
const NUMBER_DIGITS = 12;

/** One entry of a thread: the run that took that number, and when (epoch ms, the kickoff's clock). */
export interface ThreadEntry {
  runId: string;
  at: number;
  /** Its run never started (its kickoff failed before the run held its id): the entry counts for nothing. */
  abandoned?: boolean;
}

/** Refuses a thread name no store could keep: 1–512 characters, no NUL, no lone surrogate (`invalid_option`). */
export function checkThread(where: string, thread: unknown): asserts thread is string {
  checkRunId(where, 'thread', thread);
}

/** The key of a thread's `number`th run: zero-padded, so keys sort in the order runs took them. */
export function threadKey(number: number): string {
  return String(number).padStart(NUMBER_DIGITS, '0');
}

/** A thread's entries as stored, in the order their numbers were taken (unreadable ones skipped). */
async function entriesOf(store: Store, thread: string): Promise<(ThreadEntry & { number: number })[]> {
  const records = await store.list('run_threads', thread);
  return records.flatMap((record: StoredRecord) => {
    const value = record.value as Partial<ThreadEntry> | null;
    const number = Number(record.key);
    if (typeof value?.runId !== 'string' || !Number.isSafeInteger(number)) return [];
    const at = typeof value.at === 'number' ? value.at : 0;
    return [{ runId: value.runId, at, number, abandoned: value.abandoned === true }];
  });
}

/**
 * Takes the next number of `thread` for run `runId`, before the run claims its own id. Refuses
 * (`thread_busy`, naming the run in the way) while the thread's latest run is running or paused, or
 * has no head yet and took its number less than a lease ago (its process may be creating it); a
 * number taken by another kickoff at the same moment refuses too. Resolves with the head of the
 * thread's previous run that still exists (pruned runs are skipped), if any. `leaseMs`: how long a
 * run may take to create its head after its entry.
 */
export async function claimThread(
  store: Store,
  thread: string,
  runId: string,
  clock: Clock,
  where: string,
  leaseMs: number = DEFAULT_LEASE_MS,
): Promise<RunHead | undefined> {
  checkThread(where, thread);
  const entries = await entriesOf(store, thread);
  const counted = entries.filter((entry) => entry.abandoned !== true);
  const latest = counted.at(-1);
  let previous: RunHead | undefined;
  if (latest !== undefined) {
    const head = await store.readRun(latest.runId);
    if (head?.status === 'running' || head?.status === 'paused') {
      throw new ThreadBusyError(where, thread, latest.runId, head.status);
    }
    if (head === undefined && clock.now() - latest.at < leaseMs) {
      throw new ThreadBusyError(where, thread, latest.runId, 'starting');
    }
    previous = head ?? (await latestHead(store, counted.slice(0, -1)));
  }
  const key = threadKey((entries.at(-1)?.number ?? 0) + 1);
  if (!(await store.insert('run_threads', thread, key, { runId, at: clock.now() }))) {
    const taker = (await store.get('run_threads', thread, key))?.value as Partial<ThreadEntry> | undefined;
    throw new ThreadBusyError(where, thread, String(taker?.runId ?? 'another run'), 'starting');
  }
  return previous;
}

/** The head of the latest of `entries` whose run still exists. */
async function latestHead(store: Store, entries: readonly ThreadEntry[]): Promise<RunHead | undefined> {
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const entry = entries[i] as ThreadEntry;
    if (entry.abandoned === true) continue;
    const head = await store.readRun(entry.runId);
    if (head !== undefined) return head;
  }
  return undefined;
}

/** The heads of `thread`'s runs, oldest first; runs pruned since (no head) are skipped. */
export async function threadRuns(store: Store, thread: string): Promise<RunHead[]> {
  checkThread('threadRuns', thread);
  const heads: RunHead[] = [];
  const seen = new Set<string>();
  for (const { runId, abandoned } of await entriesOf(store, thread)) {
    if (abandoned === true || seen.has(runId)) continue;
    seen.add(runId);
    const head = await store.readRun(runId);
    if (head !== undefined) heads.push(head);
  }
  return heads;
}

/**
 * Marks run `runId`'s entry in `thread` abandoned: its kickoff failed before the run held its id,
 * so the thread is free again at once (rather than after a lease). Best effort: a failed write only
 * leaves the thread busy for that lease.
 */
export async function abandonThreadEntry(store: Store, thread: string, runId: string): Promise<void> {
  try {
    const entries = await entriesOf(store, thread);
    const entry = entries.reverse().find((e) => e.runId === runId && e.abandoned !== true);
    if (entry === undefined) return;
    const value = { runId, at: entry.at, abandoned: true };
    await store.put('run_threads', thread, threadKey(entry.number), value);
  } catch {
    // The entry stays; it stops counting a lease after it was taken.
  }
}
