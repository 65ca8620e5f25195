import { describe, expect, it } from 'vitest';
import { liveProgress, plainProgress } from '../../src/cli/progress.js';
import type { StatecrewEvent } from '../../src/types.js';

/** A map step run `summaries` of `total` items: each started, its child crew's events, then settled. */
function mapEvents(total: number, failing: (index: number) => boolean): StatecrewEvent[] {
  const events: StatecrewEvent[] = [];
  const at = 1_000;
  let done = 0;
  let failed = 0;
  events.push({
    runId: 'd-1',
    at,
    type: 'node.started',
    nodeId: 'summaries',
    name: 'summaries',
    attempt: 1,
    agent: '',
  });
  for (let index = 0; index < total; index += 1) {
    const itemId = `doc-${index}`;
    const childId = `d-1/summaries/${itemId}`;
    const item = {
      runId: 'd-1',
      at,
      type: 'flow.item',
      step: 'summaries',
      nodeId: 'summaries',
      itemId,
      index,
      childId,
      attempt: 1,
      total,
    } as const;
    events.push({ ...item, status: 'started', done, failed });
    // The item's crew: its events relayed under the map step, with the child's run id.
    const crew = { runId: childId, at, step: 'summaries' };
    events.push({
      ...crew,
      type: 'node.started',
      nodeId: 'sum',
      name: 'sum',
      attempt: 1,
      agent: 'Summarizer',
    });
    events.push({
      ...crew,
      type: 'model.call',
      nodeId: 'sum',
      attempt: 1,
      durationMs: 1,
      usage: { inputTokens: 2, outputTokens: 1, totalTokens: 3, calls: 1 },
    });
    if (failing(index)) {
      failed += 1;
      events.push({
        ...item,
        status: 'failed',
        done,
        failed,
        error: 'empty document',
        code: 'map_item_failed',
      });
    } else {
      done += 1;
      events.push({ ...item, status: 'completed', done, failed });
    }
  }
  return events;
}

describe('the CLI progress of a map step', () => {
  it('prints a line per tenth of a 10,000-item map and one per failed item, none per item run', () => {
    let written = '';
    const progress = plainProgress({ write: (text: string) => (written += text) }, 'd-1');
    for (const event of mapEvents(10_000, (i) => i === 4_321)) progress.event(event);
    const lines = written.split('\n').slice(0, -1);
    expect(lines).toEqual([
      'summaries started (attempt 1)',
      'summaries: 1000/10000 done',
      'summaries: 2000/10000 done',
      'summaries: 3000/10000 done',
      'summaries: 4000/10000 done',
      'summaries: item doc-4321 failed: empty document',
      'summaries: 4999/10000 done, 1 failed',
      'summaries: 5999/10000 done, 1 failed',
      'summaries: 6999/10000 done, 1 failed',
      'summaries: 7999/10000 done, 1 failed',
      'summaries: 8999/10000 done, 1 failed',
      'summaries: 9999/10000 done, 1 failed',
    ]);
  });

  it('prints every settled item of a small map, and its retries', () => {
    let written = '';
    const progress = plainProgress({ write: (text: string) => (written += text) }, 'd-1');
    const events = mapEvents(3, (i) => i === 1);
    events.splice(2, 0, {
      ...(events[1] as Extract<StatecrewEvent, { type: 'flow.item' }>),
      status: 'retrying',
      attempt: 2,
    });
    for (const event of events) progress.event(event);
    expect(written.split('\n').slice(1, -1)).toEqual([
      'summaries: item doc-0 retrying (attempt 2)',
      'summaries: 1/3 done',
      'summaries: item doc-1 failed: empty document',
      'summaries: 1/3 done, 1 failed',
      'summaries: 2/3 done, 1 failed',
    ]);
  });

  it("says the counts on the map step's row of the live list, and counts its items' model calls", () => {
    let written = '';
    const progress = liveProgress(
      { write: (text: string) => (written += text) },
      ['summaries'],
      'd-1',
      () => 5_000,
    );
    const events = mapEvents(100, (i) => i % 50 === 0);
    // The last item is still running.
    for (const event of events.slice(0, -1)) progress.event(event);
    progress.end();
    const frame = written.slice(written.lastIndexOf('\u001b[G') + 3);
    expect(frame).toMatch(/▶ summaries +running .* 97\/100 done, 2 failed …/);
    // The items' crews have no rows of their own.
    expect(frame).not.toContain('sum ');
    expect(frame).toContain('100 model calls · 300 tokens');
  });
});
