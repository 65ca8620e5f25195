import { describe, expect, it } from 'vitest';
import {
  Agent,
  Crew,
  type EvalCaseResult,
  evaluate,
  listEvalReports,
  MemoryStore,
  RunAbortedError,
  readEvalReport,
  SqliteStore,
  Task,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { gatedModel } from '../helpers.js';
import { researchCrew, supportFlow } from './eval-fixtures.js';

/** A crew of one task, `Write about {topic}`, whose model replies only when the test releases it. */
function gatedCrew() {
  const gate = gatedModel();
  const writer = new Agent({ role: 'Writer', llm: gate.model, maxRetries: 0 });
  const crew = new Crew({
    tasks: [new Task({ name: 'write', description: 'Write about {topic}', agent: writer })],
  });
  return { gate, crew };
}

const topics = (...names: string[]) => names.map((topic) => ({ id: topic, inputs: { topic } }));

describe('evaluate: runs', () => {
  it('keeps at most `concurrency` runs in flight; the report in case order, onCase in finishing order', async () => {
    const { gate, crew } = gatedCrew();
    const finished: string[] = [];
    const done = evaluate({
      target: crew,
      dataset: topics('A', 'B', 'C', 'D'),
      concurrency: 2,
      scorers: { any: () => 1 },
      onCase: (result) => finished.push(result.caseId),
    });
    await gate.whenCalled('Write about B');
    expect(gate.started).toEqual(['Write about A', 'Write about B']);
    gate.release('Write about B');
    await gate.whenCalled('Write about C');
    expect(gate.started).toHaveLength(3);
    gate.release('Write about C');
    await gate.whenCalled('Write about D');
    gate.release('Write about D');
    gate.release('Write about A');
    const report = await done;
    expect(gate.model.peakInFlight).toBe(2);
    expect(finished).toEqual(['B', 'C', 'D', 'A']);
    expect(report.cases.map((c) => c.caseId)).toEqual(['A', 'B', 'C', 'D']);
    expect(report.cases.map((c) => c.output)).toEqual([
      'done Write about A',
      'done Write about B',
      'done Write about C',
      'done Write about D',
    ]);
  });

  it('on abort, aborts the runs in flight, starts no other, and rejects with the partial report', async () => {
    const { gate, crew } = gatedCrew();
    const controller = new AbortController();
    const done = evaluate({
      target: crew,
      dataset: topics('A', 'B', 'C'),
      concurrency: 2,
      signal: controller.signal,
      scorers: { any: () => 1 },
    });
    await gate.whenCalled('Write about B');
    gate.release('Write about A');
    await gate.whenCalled('Write about C');
    controller.abort(new Error('stop'));
    const error: unknown = await done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
    const partial = (error as RunAbortedError<{ cases: EvalCaseResult[] }>).partial;
    expect(partial.cases.map((c) => `${c.caseId}:${c.status}:${c.error?.code ?? ''}`)).toEqual([
      'A:completed:',
      'B:error:aborted',
      'C:error:aborted',
    ]);
    expect(gate.started).toHaveLength(3);
  });

  it('keeps the runs in the store given, readable there, and keeps the report there', async () => {
    const store = new SqliteStore({ path: ':memory:' });
    try {
      const crewReport = await evaluate({
        target: researchCrew(),
        dataset: topics('AI'),
        store,
        scorers: { any: () => 1 },
      });
      const crewRun = await store.readRun(crewReport.cases[0]?.runId ?? '');
      expect(crewRun).toMatchObject({ kind: 'crew', name: 'research', status: 'completed' });
      const flow = supportFlow();
      const flowReport = await evaluate({
        target: flow,
        dataset: [{ inputs: { ticket: 'refund #1' } }],
        store,
        scorers: { any: () => 1 },
      });
      const flowRun = await flow.getRun(flowReport.cases[0]?.runId ?? '', { store });
      expect(flowRun?.status).toBe('completed');
      expect(await readEvalReport(store, crewReport.id)).toEqual(crewReport);
      expect(await readEvalReport(store, flowReport.id)).toEqual(flowReport);
      const listed = (await listEvalReports(store)).map((head) => head.id);
      expect(listed.sort()).toEqual([crewReport.id, flowReport.id].sort());
    } finally {
      await store.close();
    }
  });

  it('keeps the runs and the report in the target’s own store when none is given', async () => {
    const store = new MemoryStore();
    const llm = createScriptedModel(['facts', 'text']);
    const crew = new Crew({
      name: 'own',
      store,
      tasks: [
        new Task({ name: 'write', description: 'Write about {topic}', agent: new Agent({ role: 'W', llm }) }),
      ],
    });
    const report = await evaluate({ target: crew, dataset: topics('AI'), scorers: { any: () => 1 } });
    expect(await store.readRun(report.cases[0]?.runId ?? '')).toMatchObject({ kind: 'crew', name: 'own' });
    expect(await readEvalReport(store, report.id)).toEqual(report);
  });

  it('keeps the runs in a memory store of its own when neither it nor the target has one', async () => {
    const report = await evaluate({
      target: researchCrew(),
      dataset: topics('AI'),
      scorers: { any: () => 1 },
    });
    expect(report.cases[0]?.status).toBe('completed');
  });
});
