import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Agent,
  Crew,
  ExecutionDocument,
  MemoryStore,
  type ProcessKind,
  type Store,
  Task,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';

/** A random crew: node i may read any nodes before it; a process; and the model call to stop at. */
const caseArbitrary = fc.integer({ min: 1, max: 24 }).chain((n) =>
  fc.record({
    deps: fc.tuple(
      ...Array.from({ length: n }, (_, i) =>
        fc.uniqueArray(fc.integer({ min: 0, max: Math.max(0, i - 1) }), { maxLength: i === 0 ? 0 : 3 }),
      ),
    ),
    process: fc.constantFrom<ProcessKind>('sequential', 'graph', 'parallel'),
    maxConcurrency: fc.integer({ min: 1, max: 6 }),
    stopAtCall: fc.integer({ min: 1, max: n }),
  }),
);

type Case = { deps: number[][]; process: ProcessKind; maxConcurrency: number };

/** The crew of a case; its model answers with the task and its context, so outputs depend on order. */
function crewOf({ deps, process, maxConcurrency }: Case, store: Store, onCall: (task: string) => void) {
  const llm = createScriptedModel((request) => {
    const task = request.prompt.split('Task: ')[1] ?? '';
    onCall(task);
    return `${task}[${request.context}]`;
  });
  const worker = new Agent({ role: 'W', llm });
  const tasks = deps.map((_, i) => new Task({ name: `n${i}`, description: `n${i}`, agent: worker }));
  if (process !== 'parallel') {
    deps.forEach((ds, i) => {
      (tasks[i] as Task).context = ds.map((d) => tasks[d] as Task);
    });
  }
  return new Crew({ tasks, process, maxConcurrency, store });
}

describe('resuming an interrupted crew run', () => {
  it('ends as the uninterrupted run does, and asks the model nothing twice that had completed', async () => {
    await fc.assert(
      fc.asyncProperty(caseArbitrary, async ({ stopAtCall, ...shape }) => {
        const reference = await crewOf(shape, new MemoryStore(), () => {}).kickoff();

        const store = new MemoryStore();
        const controller = new AbortController();
        let calls = 0;
        const interrupted = crewOf(shape, store, () => {
          calls += 1;
          if (calls === stopAtCall) controller.abort('stop');
        }).kickoff({ executionId: 'run', signal: controller.signal });
        const stoppedEarly = await interrupted.then(
          () => false,
          () => true,
        );
        const before = await ExecutionDocument.fromStore(store, 'run');
        const completedBefore = new Set(
          (before?.results ?? []).filter((r) => r.status === 'completed').map((r) => r.nodeId),
        );

        const askedAgain: string[] = [];
        const again = crewOf(shape, store, (task) => askedAgain.push(task));
        // Stopped before any task completed: the store holds nothing of the run, which starts over.
        const resumed = await again.resume('run').catch((error: { code?: string }) => {
          expect(error.code).toBe('run_not_found');
          expect(completedBefore.size).toBe(0);
          return again.kickoff({ executionId: 'run' });
        });
        expect(resumed.status).toBe(reference.status);
        expect(resumed.nodeResults).toEqual(reference.nodeResults);
        expect(resumed.output).toEqual(reference.output);
        for (const task of askedAgain) expect(completedBefore.has(task)).toBe(false);
        expect(new Set([...completedBefore, ...askedAgain]).size).toBe(shape.deps.length);
        if (!stoppedEarly) expect(askedAgain).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});
