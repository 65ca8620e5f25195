import { describe, expect, it } from 'vitest';
import { Agent, Crew, ExecutionDocument, MemoryStore, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { toCrewView } from '../../src/view/index.js';
import { taskLine, tickingClock } from '../helpers.js';

function storedCrew(store: MemoryStore) {
  const llm = createScriptedModel((r) =>
    taskLine(r.prompt) === 'Task: Check the facts'
      ? new Error('source unreachable')
      : `done: ${taskLine(r.prompt)}`,
  );
  const worker = new Agent({ role: 'Analyst', llm, maxRetries: 0 });
  const gather = new Task({ name: 'gather', description: 'Gather {topic}', agent: worker });
  const check = new Task({ name: 'check', description: 'Check the facts', agent: worker, context: [gather] });
  const report = new Task({ name: 'report', description: 'Report', agent: worker, context: [check] });
  const side = new Task({ name: 'side', description: 'Side note', agent: worker, context: [gather] });
  return new Crew({ name: 'dd', tasks: [gather, check, report, side], process: 'graph', store });
}

describe('toCrewView of a stored run', () => {
  it('reads an ExecutionDocument: statuses, prompts, contexts and outputs, and the blocked descendants', async () => {
    const store = new MemoryStore();
    const crew = storedCrew(store);
    const out = await crew.kickoff({ inputs: { topic: 'ACME' }, clock: tickingClock() });
    const doc = await ExecutionDocument.fromStore(store, out.metadata.executionId);
    expect(doc).toBeDefined();
    const view = toCrewView(crew, doc);
    expect(view).toMatchObject({
      id: out.metadata.executionId,
      status: 'partial',
      name: 'dd',
      process: 'graph',
    });
    expect(Object.fromEntries(view.nodes.map((n) => [n.id, n.status]))).toEqual({
      gather: 'completed',
      check: 'failed',
      report: 'blocked',
      side: 'completed',
    });
    const gather = view.nodes.find((n) => n.id === 'gather');
    expect(taskLine(gather?.prompt ?? '')).toBe('Task: Gather ACME');
    expect(gather?.output).toBe('done: Task: Gather ACME');
    expect(view.nodes.find((n) => n.id === 'side')?.context).toBe('done: Task: Gather ACME');
    expect(view.nodes.find((n) => n.id === 'check')?.error).toBe('source unreachable');
    expect(view.edges.filter((e) => e.taken).map((e) => `${e.from}->${e.to}`)).toEqual([
      'gather->check',
      'gather->side',
    ]);
    expect(view.timeline.map((e) => e.node).sort()).toEqual(['check', 'gather', 'side']);
    expect(view.totals.timeMs).toBe(doc?.totalTimeMs);
    // The document's plain data (what a CLI reads back as JSON) gives the same view.
    expect(toCrewView(crew, JSON.parse(JSON.stringify(doc?.toJSON())))).toEqual(view);
  });
});
