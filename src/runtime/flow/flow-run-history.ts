import { FlowMismatchError, RunNotFoundError } from '../../errors.js';
import type { Store } from '../../stores/store.js';
import type { HistoryOptions, RunHistory } from '../../types.js';
import { checkHistoryOptions, headFacts, pageOf } from '../durable/history-page.js';
import type { FlowDefinition } from './definition.js';
import { flowCheckpoints, flowStatus, readFlowRecords } from './flow-history.js';

/**
 * The committed history of run `id` of `definition`, read from `store` (as `readHistory` reads it):
 * `run_not_found` when the store holds no such run, `flow_mismatch` for another flow's or a crew's run.
 */
export async function flowRunHistory(
  definition: FlowDefinition<unknown>,
  store: Store,
  id: string,
  options: HistoryOptions,
): Promise<RunHistory> {
  const where = `Flow "${definition.name}" history`;
  const page = checkHistoryOptions(where, options);
  const [head, read] = await Promise.all([store.readRun(id), readFlowRecords(store, id)]);
  if (head !== undefined && (head.kind !== 'flow' || head.name !== definition.name)) {
    throw new FlowMismatchError(definition.name, id, head.kind === 'flow' ? head.name : `crew ${head.name}`);
  }
  if (read !== undefined && read.header.flow !== definition.name) {
    throw new FlowMismatchError(definition.name, id, read.header.flow);
  }
  if (head === undefined && read === undefined) throw new RunNotFoundError(where, id);
  const status = read === undefined ? (head?.status ?? 'running') : flowStatus(head, read.header);
  const run = { id, kind: 'flow' as const, name: definition.name, status, ...headFacts(head) };
  return pageOf(run, read === undefined ? [] : flowCheckpoints(id, read), page);
}
