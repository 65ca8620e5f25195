import type { Store } from '../../stores/store.js';
import type { Checkpoint } from '../../types.js';
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
