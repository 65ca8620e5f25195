import { RunNotFoundError } from '../../errors.js';
import type { RunHead, Store } from '../../stores/store.js';
import type { Checkpoint, HistoryOptions, RunHistory } from '../../types.js';
import { checkHistoryOptions, headFacts, pageOf } from '../durable/history-page.js';
import { RUN_KEY } from '../durable/run-key.js';
import { readTaskResult, type StoredTaskResult } from './crew-store.js';

/** What `history` reads of a crew run: its task results in commit order, and its crew and status. */
export interface CrewRecordsRead {
  crew: string;
  /** The stored run document's status, or `interrupted` when its process died before writing it. */
  status: string;
  results: StoredTaskResult[];
}

/** Reads a crew run's task results (and its document); undefined when the store holds neither. */
export async function readCrewRecords(store: Store, id: string): Promise<CrewRecordsRead | undefined> {
  const [rows, run] = await Promise.all([
    store.list('crew_task_results', id),
    store.get('crew_executions', id, RUN_KEY),
  ]);
  if (rows.length === 0 && run === undefined) return undefined;
  const results = rows.map((row) => readTaskResult(row.value));
  const document = run?.value as { crew?: unknown; status?: unknown } | undefined;
  const crew = typeof document?.crew === 'string' ? document.crew : (results[0]?.crew ?? 'crew');
  const status = typeof document?.status === 'string' ? document.status : 'interrupted';
  return { crew, status, results };
}

/** A crew run's checkpoints in commit order: each task run that settled (a paused one too), with its raw text. */
export function crewCheckpoints(results: readonly StoredTaskResult[]): Checkpoint[] {
  return results.map((result, index) => {
    const checkpoint: Checkpoint = {
      checkpoint: result.nodeId,
      seq: index + 1,
      nodeId: result.nodeId,
      kind: 'task',
      name: result.name,
      at: result.startedAt + result.durationMs,
      status: result.status,
      output: result.raw,
    };
    if ('structured' in result && result.structured !== undefined) checkpoint.structured = result.structured;
    if (result.error !== undefined) checkpoint.error = result.error;
    if (result.code !== undefined) checkpoint.code = result.code;
    return checkpoint;
  });
}

/**
 * Refuses run `id` unless it is a run of crew `crew` (`run_not_found`, naming the run it is): a run
 * of a flow, or of another crew, is not this crew's to list or fork.
 */
export function checkCrewRun(
  what: string,
  crew: string,
  id: string,
  head: RunHead | undefined,
  records: CrewRecordsRead | undefined,
): void {
  if (head === undefined && records === undefined) throw new RunNotFoundError(what, id);
  const kind = head?.kind ?? 'crew';
  const name = head?.name ?? records?.crew;
  if (kind !== 'crew' || name !== crew) {
    throw new RunNotFoundError(what, id, `it is a run of ${kind} "${name}", not of crew "${crew}"`);
  }
}

/**
 * The committed history of run `id` of crew `crew` (`crew.history`): its task runs in commit order,
 * across resumes, one page of them. `run_not_found` for an unknown run, or a run of another crew or
 * of a flow.
 */
export async function crewHistory(
  crew: string,
  store: Store,
  id: string,
  options: HistoryOptions,
): Promise<RunHistory> {
  const what = `Crew "${crew}" history`;
  const page = checkHistoryOptions(what, options);
  const [head, records] = await Promise.all([store.readRun(id), readCrewRecords(store, id)]);
  checkCrewRun(what, crew, id, head, records);
  const status = head?.status ?? records?.status ?? 'interrupted';
  const run = { id, kind: 'crew' as const, name: crew, status, ...headFacts(head) };
  return pageOf(run, crewCheckpoints(records?.results ?? []), page);
}
