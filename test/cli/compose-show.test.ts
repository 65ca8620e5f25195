import { describe, expect, it } from 'vitest';
import { mapCountLines } from '../../src/cli/commands/map-counts.js';
import { storedEventKey } from '../../src/runtime/durable/event-record.js';
import type { FlowSnapshot } from '../../src/runtime/flow/snapshot.js';
import { MemoryStore } from '../../src/stores/memory.js';

/** The parts of a stored flow run that `statecrew show` reads for its maps' counts. */
const snapshot = (id: string, outputs: Record<string, unknown>) =>
  ({ id, outputs }) as unknown as FlowSnapshot;

describe('statecrew show of a run with a map step', () => {
  it('says the counts of a map step run from its kept item events, with the items still running', async () => {
    const store = new MemoryStore();
    const item = (index: number, status: string, done: number, failed: number) => ({
      type: 'flow.item',
      runId: 'd-1',
      at: 1_000 + index,
      step: 'summaries',
      nodeId: 'summaries',
      itemId: `doc-${index}`,
      index,
      childId: `d-1/summaries/doc-${index}`,
      attempt: 1,
      status,
      done,
      failed,
      total: 100,
    });
    const events = [
      item(0, 'started', 0, 0),
      item(1, 'started', 0, 0),
      item(2, 'started', 0, 0),
      item(0, 'completed', 1, 0),
      item(1, 'failed', 1, 1),
    ];
    for (const [i, event] of events.entries())
      await store.put('run_events', 'd-1', storedEventKey(i + 1), event);
    expect(await mapCountLines(store, snapshot('d-1', {}))).toEqual([
      '  summaries: 1/100 done, 1 failed, 1 running',
    ]);
  });

  it('says the counts of a completed map step from its output when the run kept no events', async () => {
    const output = [
      { item: 'a', itemId: 'a', status: 'completed', output: 'x' },
      { item: 'b', itemId: 'b', status: 'completed', output: 'y' },
      { item: 'c', itemId: 'c', status: 'failed', error: { message: 'no text' } },
    ];
    const lines = await mapCountLines(
      new MemoryStore(),
      snapshot('d-2', { fetch: ['a', 'b', 'c'], summaries: output }),
    );
    expect(lines).toEqual(['  summaries: 2/3 done, 1 failed']);
  });
});
