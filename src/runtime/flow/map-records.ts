import { CorruptSnapshotError, InvalidStateError } from '../../errors.js';
import type { JsonValue, Store } from '../../stores/store.js';
import type { Failure, MapItemResult } from '../../types.js';
import { decodeRunValue, encodeAt } from '../durable/codec.js';
import type { RunCommits } from '../run/run-commits.js';
import type { MapItem } from './map-items.js';

/**
 * How a map step run keeps its items, in `flow_runs` under the parent run's id beside its header and
 * step records: `item:<nodeId>:<index, 6 digits or more>` per settled item, `{ itemId, index, status,
 * output?, error? }`, its output in the run value codec's form. The item itself is not kept: a resumed
 * run gets it again from `items(ctx)` on the state it restored. The snapshot loader, the history
 * reader and a fork read only `run`, `step:` and `round:` records; pruning the run deletes these too.
 */
export const ITEM_PREFIX = 'item:';

/** An item record as it is stored. */
interface StoredItem {
  itemId: string;
  index: number;
  status: 'completed' | 'failed';
  output?: JsonValue;
  error?: Failure;
}

/** The key of item `index` of step run `nodeId`. */
export function itemKey(nodeId: string, index: number): string {
  return `${ITEM_PREFIX}${nodeId}:${String(index).padStart(6, '0')}`;
}

/** A settled item: what the step's output lists for it, and what its record keeps. */
export type SettledItem = Omit<MapItemResult, 'item'>;

/**
 * The items step run `nodeId` of parent run `runId` settled before (a run that goes on after its
 * process died, or after a failed write), by index; empty without a store.
 */
export async function storedItems(
  store: Store | undefined,
  runId: string,
  nodeId: string,
): Promise<Map<number, SettledItem>> {
  const settled = new Map<number, SettledItem>();
  if (store === undefined) return settled;
  const prefix = `${ITEM_PREFIX}${nodeId}:`;
  for (const record of await store.list('flow_runs', runId)) {
    if (!record.key.startsWith(prefix)) continue;
    const value = record.value as Partial<StoredItem> | null;
    if (value === null || typeof value.itemId !== 'string' || typeof value.index !== 'number') {
      throw new CorruptSnapshotError('flow_runs', runId, record.key, 'not a map item');
    }
    settled.set(value.index, decoded(runId, record.key, value as StoredItem));
  }
  return settled;
}

function decoded(runId: string, key: string, value: StoredItem): SettledItem {
  const { itemId, status, output, error } = value;
  const item: SettledItem = { itemId, status };
  if (error !== undefined) item.error = error;
  if (output === undefined) return item;
  try {
    item.output = decodeRunValue(output);
  } catch (cause) {
    throw new CorruptSnapshotError(
      'flow_runs',
      runId,
      key,
      `a value the codec cannot read: ${String(cause)}`,
    );
  }
  return item;
}

/**
 * An item's record in its stored form; throws `invalid_state` naming the path of what no store can
 * keep in its output (the item then fails with it).
 */
export function itemRecord(step: string, item: MapItem, settled: SettledItem): JsonValue {
  const record: StoredItem = { itemId: item.itemId, index: item.index, status: settled.status };
  if (settled.output !== undefined) {
    record.output = encodeAt(settled.output, `outputs.${step}[${item.index}].output`, (path, reason) =>
      InvalidStateError.unstorable(step, path, reason),
    );
  }
  if (settled.error !== undefined) record.error = settled.error;
  return record as unknown as JsonValue;
}

/**
 * Commits an item's record on the run's commit path (after the run's earlier commits); rejects with
 * the failure that halted the run when it did not land (`store_unavailable`, `lease_lost`).
 */
export async function keepItem(commits: RunCommits, key: string, value: JsonValue): Promise<void> {
  commits.stage({ collection: 'flow_runs', key, value });
  await commits.commit();
  if (commits.failure !== undefined) throw commits.failure;
}
