import { eventsSoFar } from '../../runtime/durable/follow-events.js';
import type { FlowSnapshot } from '../../runtime/flow/snapshot.js';
import type { Store } from '../../stores/store.js';
import { type MapRunFacts, mapFactsOfOutput, mapRunFacts } from '../../view/map-runs.js';
import { mapProgressText } from '../map-progress.js';

/**
 * The item counts of each map step run of stored flow run `flow`, a line each
 * (`summaries: 37/100 done, 2 failed`, and the items running): from its kept `flow.item` events, else,
 * for a run that kept none, from each completed map step's output (its items' results).
 */
export async function mapCountLines(store: Store, flow: FlowSnapshot): Promise<string[]> {
  const events = (await eventsSoFar(store, flow.id)).map((kept) => kept.event);
  const facts: Map<string, MapRunFacts> = mapRunFacts(events, flow.id);
  if (facts.size === 0 && events.length === 0) {
    for (const [step, output] of Object.entries(flow.outputs)) {
      const seen = mapFactsOfOutput(output, flow.id, step);
      if (seen !== undefined) facts.set(step, seen);
    }
  }
  return [...facts].map(([nodeId, { counts }]) => {
    const running = counts.running > 0 ? `, ${counts.running} running` : '';
    return `  ${mapProgressText({ nodeId, done: counts.completed, failed: counts.failed, total: counts.total })}${running}`;
  });
}
