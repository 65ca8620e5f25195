import { CorruptSnapshotError, InvalidOptionError } from '../../errors.js';
import type { RunHead } from '../../stores/store.js';
import type { Checkpoint, HistoryOptions, RunHistory, RunLineage } from '../../types.js';

/** Checks a history page's options (`invalid_option`, naming `where`): `after` ≥ 0 and `limit` ≥ 1, whole numbers. */
export function checkHistoryOptions(
  where: string,
  options: HistoryOptions = {},
): { after: number; limit: number } {
  const { after = 0, limit } = options;
  if (!Number.isSafeInteger(after) || after < 0) {
    throw new InvalidOptionError(where, 'after', 'a whole number ≥ 0 (a checkpoint seq)', after);
  }
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) {
    throw new InvalidOptionError(where, 'limit', 'a whole number ≥ 1', limit);
  }
  return { after, limit: limit ?? Number.POSITIVE_INFINITY };
}

/** The lineage and thread a run's head keeps in its data (a fork's `forkedFrom`, a kickoff's `thread`). */
export function headFacts(head: RunHead | undefined): { forkedFrom?: RunLineage; thread?: string } {
  const data = head?.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return {};
  const facts: { forkedFrom?: RunLineage; thread?: string } = {};
  const from = data.forkedFrom as { runId?: unknown; checkpoint?: unknown } | undefined;
  if (typeof from?.runId === 'string' && typeof from.checkpoint === 'string') {
    facts.forkedFrom = { runId: from.runId, checkpoint: from.checkpoint };
  }
  if (typeof data.thread === 'string') facts.thread = data.thread;
  return facts;
}

/**
 * One page of `checkpoints` (all of a run's, numbered from 1 in commit order): those after `after`,
 * at most `limit`, with `next` when more follow.
 */
export function pageOf(
  run: Omit<RunHistory, 'checkpoints' | 'next'>,
  checkpoints: readonly Checkpoint[],
  page: { after: number; limit: number },
): RunHistory {
  const rest = checkpoints.filter((c) => c.seq > page.after);
  const shown = rest.slice(0, Number.isFinite(page.limit) ? page.limit : rest.length);
  const history: RunHistory = { ...run, checkpoints: shown };
  const last = shown[shown.length - 1];
  if (shown.length < rest.length && last !== undefined) history.next = last.seq;
  return history;
}

/**
 * The error of a fork whose first commit — the checkpoints it keeps — never landed (the write failed,
 * or its process stopped between claiming its id and writing them): going on would run it as a fresh run, not as the fork it was asked to be.
 * `corrupt_snapshot`, saying to fork the source again; its claimer leaves it failed, so no runner
 * takes it up again.
 */
export function unfinishedFork(collection: string, id: string, from: RunLineage): CorruptSnapshotError {
  return new CorruptSnapshotError(
    collection,
    id,
    'run',
    `it is a fork of run "${from.runId}" at "${from.checkpoint}" whose kept checkpoints were never written (their write failed, or its process stopped while creating it); fork the source again`,
  );
}
