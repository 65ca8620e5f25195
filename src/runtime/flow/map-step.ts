import { InternalError, MapItemFailedError } from '../../errors.js';
import type { MapItemResult } from '../../types.js';
import type { MapSettings } from './compose-options.js';
import type { StepContext } from './definition.js';
import { type ItemRunParts, runItem } from './map-item-runner.js';
import { type MapItem, mapItemsOf } from './map-items.js';
import { itemKey, itemRecord, keepItem, type SettledItem, storedItems } from './map-records.js';
import { type StepScope, stepScopeOf } from './step-context.js';

/** Where a map step run stands: its items, what settled of them, and its running counts. */
interface MapRun {
  scope: StepScope;
  settings: MapSettings;
  items: MapItem[];
  settled: (SettledItem | undefined)[];
  done: number;
  failed: number;
  /** The first item that failed (allowFailures off): no more items start. */
  stopAt: MapItem | undefined;
  /** The attempt each item in flight is at, by index. */
  attempts: Map<number, number>;
}

/**
 * The body of a map step: runs each item of `settings.items(context)` as a child run, at most
 * `concurrency` at once, started in item order, and resolves with their results in item order. With a
 * store, each settled item's result is committed on the run's commit path before its slot takes the
 * next item, and a step run that runs again (its run went on after its process died, or a failed run
 * was resumed) runs only the items without a result — a failed item again, unless failures are
 * allowed (then its failure is its result). An item that failed after its retries, without `allowFailures`, lets the
 * items in flight settle (and keeps their results), starts no other, and fails the step with
 * `map_item_failed`.
 */
export async function runMapStep(
  context: StepContext<unknown>,
  settings: MapSettings,
): Promise<MapItemResult[]> {
  const scope = stepScopeOf(context);
  if (scope === undefined) throw new InternalError('runMapStep', 'a map step runs inside a flow run only');
  const { flow, step, runId, nodeId } = scope;
  const items = await mapItemsOf(context, settings, { flow, step, runId, nodeId });
  const kept = await storedItems(scope.commits === undefined ? undefined : scope.store, runId, nodeId);
  const run: MapRun = {
    scope,
    settings,
    items,
    settled: [],
    done: 0,
    failed: 0,
    stopAt: undefined,
    attempts: new Map(),
  };
  for (const item of items) {
    const found = kept.get(item.index);
    // A record of another item at this place (the list changed) is not this item's result.
    if (found === undefined || found.itemId !== item.itemId) continue;
    // A failed item failed the step (unless failures are allowed): the step running again, as a
    // failed run's resume runs its failed steps again, tries it again (a crew or flow item goes on
    // with its stored run); with `allowFailures` its failure is a result like any other.
    if (found.status === 'failed' && !settings.allowFailures) continue;
    run.settled[item.index] = found;
    if (found.status === 'completed') run.done += 1;
    else run.failed += 1;
  }
  await runPending(run, context);
  if (run.stopAt !== undefined) throw itemFailed(run, run.stopAt);
  return items.map((item) => ({ item: item.item, ...(run.settled[item.index] as SettledItem) }));
}

/** Runs the items without a result, `concurrency` slots each taking the next one in item order. */
async function runPending(run: MapRun, context: StepContext<unknown>): Promise<void> {
  const pending = run.items.filter((item) => run.settled[item.index] === undefined);
  const parts: ItemRunParts = {
    scope: run.scope,
    settings: run.settings,
    context,
    signal: run.scope.signal,
    attempting: (item, attempt) => {
      run.attempts.set(item.index, attempt);
      announce(run, item, attempt === 1 ? 'started' : 'retrying', attempt);
    },
  };
  let next = 0;
  const slot = async () => {
    while (run.stopAt === undefined && next < pending.length) {
      const item = pending[next] as MapItem;
      next += 1;
      await settle(run, item, await runItem(parts, item));
    }
  };
  const slots = Math.min(run.settings.concurrency, pending.length);
  const settled = await Promise.allSettled(Array.from({ length: slots }, slot));
  // The run stopped, or a write failed: the first such reason is the step's.
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
}

/** Keeps an item's result (with a store, committed first: an output no store keeps fails the item). */
async function settle(run: MapRun, item: MapItem, result: SettledItem): Promise<void> {
  const { scope } = run;
  let settled = result;
  if (scope.commits !== undefined) {
    let record: ReturnType<typeof itemRecord>;
    try {
      record = itemRecord(scope.step, item, settled);
    } catch (error) {
      const { message, code, retryable } = error as { message: string; code: string; retryable: boolean };
      settled = { itemId: item.itemId, status: 'failed', error: { message, code, retryable } };
      record = itemRecord(scope.step, item, settled);
    }
    await keepItem(scope.commits, itemKey(scope.nodeId, item.index), record);
  }
  run.settled[item.index] = settled;
  if (settled.status === 'completed') run.done += 1;
  else {
    run.failed += 1;
    if (!run.settings.allowFailures && run.stopAt === undefined) run.stopAt = item;
  }
  const attempt = run.attempts.get(item.index) ?? 1;
  run.attempts.delete(item.index);
  announce(run, item, settled.status, attempt, settled);
}

/** Publishes a `flow.item` event for `item`, with the step run's running counts. */
function announce(
  run: MapRun,
  item: MapItem,
  status: 'started' | 'retrying' | 'completed' | 'failed',
  attempt: number,
  settled?: SettledItem,
): void {
  const { scope } = run;
  const error = settled?.error;
  scope.hub.emit({
    type: 'flow.item',
    step: scope.step,
    nodeId: scope.nodeId,
    itemId: item.itemId,
    index: item.index,
    status,
    childId: item.childId,
    attempt,
    done: run.done,
    failed: run.failed,
    total: run.items.length,
    ...(error === undefined ? {} : { error: error.message }),
    ...(error?.code === undefined ? {} : { code: error.code }),
  });
}

/** The step's failure: the first failed item's, as `map_item_failed`. */
function itemFailed(run: MapRun, item: MapItem): MapItemFailedError {
  const error = run.settled[item.index]?.error;
  return new MapItemFailedError(run.scope.step, item, {
    message: error?.message ?? 'failed',
    code: error?.code,
  });
}
