import type { StatecrewEvent } from '../types.js';
import { MAP_ITEMS_SHOWN, type ViewMap, type ViewMapCounts, type ViewMapItem } from './model.js';

type ItemEvent = Extract<StatecrewEvent, { type: 'flow.item' }>;

/** What a map step run's `flow.item` events tell: its counts, and each item's latest state by item id. */
export interface MapRunFacts {
  counts: ViewMapCounts;
  items: Map<string, ViewMapItem>;
}

/** An item as its latest event tells it. */
function itemOf(event: ItemEvent): ViewMapItem {
  const item: ViewMapItem = {
    index: event.index,
    itemId: event.itemId,
    status: event.status === 'started' ? 'running' : event.status,
    childId: event.childId,
    attempt: event.attempt,
  };
  if (event.error !== undefined) item.error = event.error;
  if (event.code !== undefined) item.code = event.code;
  return item;
}

/**
 * Folds the `flow.item` events of flow run `flowId` (those of other runs — a child flow's own maps —
 * are left out) into one {@link MapRunFacts} per map step run, by node id. The counts are the latest
 * event's (`done`, `failed`, `total`); running are the items whose latest event started or retries
 * them, never more than those neither done nor failed.
 */
export function mapRunFacts(
  events: readonly StatecrewEvent[],
  flowId: string | undefined,
): Map<string, MapRunFacts> {
  const runs = new Map<string, MapRunFacts>();
  for (const event of events) {
    if (event.type !== 'flow.item' || (flowId !== undefined && event.runId !== flowId)) continue;
    let facts = runs.get(event.nodeId);
    if (facts === undefined) {
      facts = { counts: { total: 0, running: 0, completed: 0, failed: 0 }, items: new Map() };
      runs.set(event.nodeId, facts);
    }
    facts.items.set(event.itemId, itemOf(event));
    Object.assign(facts.counts, { total: event.total, completed: event.done, failed: event.failed });
  }
  for (const { counts, items } of runs.values()) {
    let running = 0;
    for (const item of items.values())
      if (item.status === 'running' || item.status === 'retrying') running += 1;
    counts.running = Math.max(0, Math.min(running, counts.total - counts.completed - counts.failed));
  }
  return runs;
}

/** Whether a value is a map step's output: a list of `{ itemId, status }` results. */
function itemResults(value: unknown): { itemId: string; status: 'completed' | 'failed'; error?: unknown }[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (r): r is { itemId: string; status: 'completed' | 'failed' } =>
      typeof r === 'object' &&
      r !== null &&
      typeof (r as { itemId?: unknown }).itemId === 'string' &&
      ((r as { status?: unknown }).status === 'completed' || (r as { status?: unknown }).status === 'failed'),
  );
}

/** Whether a step's output is a map step's: a non-empty list of item results, each `{ itemId, status }`. */
export function isMapOutput(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0 && itemResults(value).length === value.length;
}

/**
 * A completed map step run's facts from its output alone (a stored run that kept no events): its
 * results in item order, each item's child run `<runId>/<nodeId>/<itemId>`.
 */
export function mapFactsOfOutput(output: unknown, runId: string, nodeId: string): MapRunFacts | undefined {
  const results = itemResults(output);
  if (results.length === 0) return undefined;
  const items = new Map<string, ViewMapItem>();
  results.forEach((r, index) => {
    const item: ViewMapItem = {
      index,
      itemId: r.itemId,
      status: r.status,
      childId: `${runId}/${nodeId}/${r.itemId}`,
      attempt: 1,
    };
    const message = (r.error as { message?: unknown } | undefined)?.message;
    if (typeof message === 'string') item.error = message;
    items.set(r.itemId, item);
  });
  const failed = results.filter((r) => r.status === 'failed').length;
  return {
    counts: { total: results.length, running: 0, completed: results.length - failed, failed },
    items,
  };
}

const RANK: Readonly<Record<ViewMapItem['status'], number>> = {
  failed: 0,
  retrying: 1,
  running: 1,
  completed: 2,
};

/**
 * The items a view lists of a map step run: at most `limit`, the failed ones first, then those
 * running, then the completed ones, each group by index — and then all in item order.
 */
export function shownItems(facts: MapRunFacts, limit = MAP_ITEMS_SHOWN): Pick<ViewMap, 'items' | 'more'> {
  const all = [...facts.items.values()];
  const chosen = all
    .sort((a, b) => RANK[a.status] - RANK[b.status] || a.index - b.index)
    .slice(0, limit)
    .sort((a, b) => a.index - b.index);
  const listed = Math.max(facts.counts.total, all.length);
  return listed > chosen.length ? { items: chosen, more: listed - chosen.length } : { items: chosen };
}
