import { InvalidMapItemsError } from '../../errors.js';
import type { MapSettings } from './compose-options.js';
import type { StepContext } from './definition.js';

/** The longest item id a map step takes. */
export const MAX_ITEM_ID_LENGTH = 200;

/** One item of a map step run, with its place, its id and its child run's id. */
export interface MapItem {
  item: unknown;
  index: number;
  itemId: string;
  /** `<parent run id>/<node id>/<itemId>`. */
  childId: string;
}

/** Where a map step run's items come from: its flow, step, parent run and node. */
export interface MapItemsWhere {
  flow: string;
  step: string;
  runId: string;
  nodeId: string;
}

/**
 * The items of one run of a map step: `settings.items(context)` awaited, checked to be an array of at
 * most `maxItems`, each with its id (`itemId(item, index)`, else its index) — text of 1–200 characters
 * without `/`, distinct — and its child run's id. Anything else is `invalid_map_items`, naming the
 * item's index and id.
 */
export async function mapItemsOf(
  context: StepContext<unknown>,
  settings: Pick<MapSettings, 'items' | 'itemId' | 'maxItems'>,
  where: MapItemsWhere,
): Promise<MapItem[]> {
  const { flow, step, runId, nodeId } = where;
  const list: unknown = await settings.items(context);
  if (!Array.isArray(list)) {
    throw new InvalidMapItemsError(flow, step, `items(ctx) must give an array, got ${typeName(list)}`);
  }
  if (settings.maxItems !== undefined && list.length > settings.maxItems) {
    throw new InvalidMapItemsError(
      flow,
      step,
      `items(ctx) gave ${list.length} items, more than maxItems (${settings.maxItems})`,
      { count: list.length, maxItems: settings.maxItems },
    );
  }
  const seen = new Map<string, number>();
  return list.map((item: unknown, index) => {
    const itemId = settings.itemId === undefined ? String(index) : settings.itemId(item, index);
    const problem = idProblem(itemId, seen);
    if (problem !== undefined) {
      const shown = typeof itemId === 'string' ? `"${itemId}"` : typeName(itemId);
      throw new InvalidMapItemsError(flow, step, `item #${index} has the id ${shown}, ${problem}`, {
        index,
        itemId: typeof itemId === 'string' ? itemId : String(itemId),
      });
    }
    seen.set(itemId, index);
    return { item, index, itemId, childId: `${runId}/${nodeId}/${itemId}` };
  });
}

/** What is wrong with an item id, if anything. */
function idProblem(itemId: unknown, seen: ReadonlyMap<string, number>): string | undefined {
  if (typeof itemId !== 'string') return 'which is not text';
  if (itemId.length < 1 || itemId.length > MAX_ITEM_ID_LENGTH) {
    return `which is not 1–${MAX_ITEM_ID_LENGTH} characters long`;
  }
  if (itemId.includes('/')) return 'which contains "/"';
  const before = seen.get(itemId);
  return before === undefined ? undefined : `which item #${before} has already`;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
