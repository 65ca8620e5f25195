import type { StatecrewEvent } from '../types.js';

type ItemEvent = Extract<StatecrewEvent, { type: 'flow.item' }>;

/** A map step run's counts as progress says them: `summaries: 37/100 done, 2 failed`. */
export function mapProgressText(event: Pick<ItemEvent, 'nodeId' | 'done' | 'failed' | 'total'>): string {
  return `${event.nodeId}: ${event.done}/${event.total} done${event.failed > 0 ? `, ${event.failed} failed` : ''}`;
}

/** Lines of progress a map step run prints at most, besides its failed items: one per tenth of its items. */
const STEPS = 10;

/**
 * What plain progress prints of map steps, throttled for big maps: a line each time a tenth more of
 * a step run's items settled (and when the last did), one per failed item and per retry; nothing for
 * an item that starts. The events of the items' child runs (run ids under `<root>/<map node>/`) print
 * nothing either: a 10,000-item map writes a dozen lines, not tens of thousands.
 */
export class MapProgress {
  /** The run id prefix of each map step run's items, and the settled count its last line said. */
  readonly #said = new Map<string, number>();
  readonly #rootId: string;

  constructor(rootId: string) {
    this.#rootId = rootId;
  }

  /** Whether `event` is of an item's child run: its lines are left out. */
  isItemEvent(event: StatecrewEvent): boolean {
    if (event.step === undefined || event.runId === this.#rootId) return false;
    for (const nodeId of this.#said.keys())
      if (event.runId.startsWith(`${this.#rootId}/${nodeId}/`)) return true;
    return false;
  }

  /** Notes a map step run by its `flow.item` event: its items' events are known from then on. */
  see(event: ItemEvent): void {
    if (!this.#said.has(event.nodeId)) this.#said.set(event.nodeId, 0);
  }

  /** The line a `flow.item` event prints, if any. */
  line(event: ItemEvent): string | undefined {
    this.see(event);
    const said = this.#said.get(event.nodeId) ?? 0;
    if (event.status === 'retrying')
      return `${event.nodeId}: item ${event.itemId} retrying (attempt ${event.attempt})`;
    if (event.status === 'started') return undefined;
    const settled = event.done + event.failed;
    const step = Math.max(1, Math.ceil(event.total / STEPS));
    const due = settled === event.total || Math.floor(settled / step) > Math.floor(said / step);
    const failure =
      event.status === 'failed'
        ? `${event.nodeId}: item ${event.itemId} failed${event.error === undefined ? '' : `: ${event.error}`}`
        : undefined;
    if (!due) return failure;
    this.#said.set(event.nodeId, settled);
    const counts = mapProgressText(event);
    return failure === undefined ? counts : `${failure}\n${counts}`;
  }
}
