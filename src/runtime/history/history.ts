import { InvalidOptionError, RunNotFoundError } from '../../errors.js';
import { checkStore, type Store } from '../../stores/store.js';
import type { HistoryOptions, RunHistory } from '../../types.js';
import { crewCheckpoints, readCrewRecords } from '../crew/crew-history.js';
import { checkHistoryOptions, headFacts, pageOf } from '../durable/history-page.js';
import { flowCheckpoints, flowStatus, readFlowRecords } from '../flow/flow-history.js';

/**
 * The committed history of run `id` of any kind, read from `store` alone: its checkpoints in commit
 * order (a crew's task runs, a flow's step runs), across resumes, read from the records the run
 * keeps anyway (no second copy). One page with `after` and `limit`. `run_not_found` when the store
 * holds no run `id`.
 *
 * @example
 * const { checkpoints } = await readHistory(store, 'refund-42');
 * for (const c of checkpoints) console.log(c.seq, c.nodeId, c.status);
 */
export async function readHistory(
  store: Store,
  id: string,
  options: HistoryOptions = {},
): Promise<RunHistory> {
  const where = 'readHistory';
  if (store === undefined) throw new InvalidOptionError(where, 'store', 'a Store', store);
  checkStore(where, store);
  if (typeof id !== 'string' || id === '') throw new InvalidOptionError(where, 'id', 'a run id', id);
  const page = checkHistoryOptions(where, options);
  const head = await store.readRun(id);
  const facts = headFacts(head);
  if (head === undefined || head.kind === 'flow') {
    const flow = await readFlowRecords(store, id);
    if (flow !== undefined) {
      const run = {
        id,
        kind: 'flow' as const,
        name: flow.header.flow,
        status: flowStatus(head, flow.header),
        ...facts,
      };
      return pageOf(run, flowCheckpoints(id, flow), page);
    }
  }
  if (head === undefined || head.kind === 'crew') {
    const crew = await readCrewRecords(store, id);
    if (crew !== undefined || head !== undefined) {
      const name = head?.name ?? crew?.crew ?? 'crew';
      const status = head?.status ?? crew?.status ?? 'interrupted';
      return pageOf({ id, kind: 'crew', name, status, ...facts }, crewCheckpoints(crew?.results ?? []), page);
    }
  }
  if (head?.kind === 'flow') {
    return pageOf({ id, kind: 'flow', name: head.name, status: head.status, ...facts }, [], page);
  }
  throw new RunNotFoundError(where, id);
}
