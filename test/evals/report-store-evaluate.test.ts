import { describe, expect, it } from 'vitest';
import {
  Agent,
  Crew,
  evaluate,
  exactMatch,
  listEvalReports,
  readEvalReport,
  SqliteStore,
  Task,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';

/** A crew of one task whose scripted model answers `notes on AI` or `notes on other`. */
function researchCrew() {
  const llm = createScriptedModel((request) => `notes on ${request.prompt.includes('AI') ? 'AI' : 'other'}`);
  const researcher = new Agent({ role: 'Researcher', goal: 'find facts', backstory: 'careful', llm });
  const task = new Task({
    name: 'research',
    description: 'Research {topic}',
    expectedOutput: 'notes',
    agent: researcher,
  });
  return new Crew({ name: 'research', tasks: [task] });
}

describe('a report evaluate keeps in the store it is given', () => {
  it('is listed with its scorer means and reads back as evaluate returned it', async () => {
    const store = new SqliteStore({ path: ':memory:' });
    try {
      const report = await evaluate({
        target: researchCrew(),
        dataset: [
          { id: 'ai', inputs: { topic: 'AI' }, expected: 'notes on AI' },
          { id: 'ml', inputs: { topic: 'ML' }, expected: 'notes on ML' },
        ],
        scorers: { exact: exactMatch() },
        store,
        id: 'eval-real',
      });
      const heads = await listEvalReports(store);
      expect(heads.map((head) => head.id)).toEqual(['eval-real']);
      expect(heads[0]).toMatchObject({
        target: { kind: 'crew', name: 'research' },
        runs: 2,
        means: { exact: 0.5 },
      });
      expect(await readEvalReport(store, 'eval-real')).toEqual(JSON.parse(JSON.stringify(report)));
      expect(await store.readRun(report.cases[0]?.runId ?? '')).toMatchObject({ status: 'completed' });
    } finally {
      await store.close();
    }
  });
});
