import { Agent, Crew, createFlow, failed, type StatecrewEvent, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';

/** A child flow: a draft, a human's approval, then publishing. */
export function reviewFlow() {
  return createFlow({ name: 'review', initialState: {} })
    .start('draft', () => 'a draft')
    .human('approve', 'draft', { routes: ['yes', 'no'], prompt: 'Publish it?' })
    .listen('publish', 'yes', () => 'published');
}

/** A one-task crew that summarizes a document. */
export function summarizeCrew() {
  const agent = new Agent({ role: 'Summarizer', llm: createScriptedModel(() => 'a summary') });
  return new Crew({
    name: 'summarize',
    tasks: [new Task({ name: 'sum', description: 'Summarize {item}', agent })],
  });
}

/** A digest: fetch documents, summarize each (a map of crews), review the digest (a subflow). */
export function digestFlow() {
  return createFlow({ name: 'digest', initialState: { docs: [] as string[] } })
    .start('fetch', ({ state }) => state.docs)
    .map('summaries', 'fetch', { items: ({ state }) => state.docs, run: summarizeCrew(), concurrency: 8 })
    .flow('review', 'summaries', reviewFlow())
    .listen('report', failed('summaries'), () => 'failed');
}

/** Events of run `runId`, stamped a millisecond apart from `start`. */
export function stamp(
  runId: string,
  events: readonly Record<string, unknown>[],
  start = 1_000,
): StatecrewEvent[] {
  return events.map((e, i) => ({ runId, at: start + i, ...e }) as StatecrewEvent);
}

/** The `flow.item` events of a map step run over `total` items: each started, then completed or failed. */
export function itemEvents(
  nodeId: string,
  total: number,
  outcome: (index: number) => 'completed' | 'failed' | 'running',
): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  let done = 0;
  let failedCount = 0;
  for (let index = 0; index < total; index += 1) {
    const itemId = `doc-${index}`;
    const base = {
      type: 'flow.item',
      step: 'summaries',
      nodeId,
      itemId,
      index,
      childId: `d-1/${nodeId}/${itemId}`,
      attempt: 1,
      total,
    };
    events.push({ ...base, status: 'started', done, failed: failedCount });
    const end = outcome(index);
    if (end === 'running') continue;
    if (end === 'completed') done += 1;
    else failedCount += 1;
    events.push({
      ...base,
      status: end,
      done,
      failed: failedCount,
      ...(end === 'failed' ? { error: `doc ${index} is empty`, code: 'map_item_failed' } : {}),
    });
  }
  return events;
}
