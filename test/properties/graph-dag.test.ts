import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Agent, Crew, type StatecrewEvent, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';

/** A random DAG: node i may depend on any node before it; listed in a random order; some nodes fail. */
const dagArbitrary = fc.integer({ min: 1, max: 60 }).chain((n) =>
  fc.record({
    deps: fc.tuple(
      ...Array.from({ length: n }, (_, i) =>
        fc.uniqueArray(fc.integer({ min: 0, max: Math.max(0, i - 1) }), { maxLength: i === 0 ? 0 : 4 }),
      ),
    ),
    order: fc.shuffledSubarray(
      Array.from({ length: n }, (_, i) => i),
      { minLength: n, maxLength: n },
    ),
    failing: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: Math.ceil(n / 4) }),
    maxConcurrency: fc.integer({ min: 1, max: 8 }),
  }),
);

describe('graph process on random DAGs', () => {
  it('completes each task once after its dependencies, fails it, or blocks it under a failed ancestor — nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(dagArbitrary, async ({ deps, order, failing, maxConcurrency }) => {
        const failSet = new Set(failing.map((i) => `n${i}`));
        const llm = createScriptedModel((r) => {
          const name = r.prompt.split('Task: ')[1] ?? '';
          return failSet.has(name) ? new Error(`${name} failed`) : `out ${name}`;
        });
        const worker = new Agent({ role: 'W', llm, maxRetries: 0 });
        const tasks = deps.map((_, i) => new Task({ name: `n${i}`, description: `n${i}`, agent: worker }));
        deps.forEach((ds, i) => {
          (tasks[i] as Task).context = ds.map((d) => tasks[d] as Task);
        });
        const run = new Crew({
          tasks: order.map((i) => tasks[i] as Task),
          process: 'graph',
          maxConcurrency,
        }).run();
        const events: StatecrewEvent[] = [];
        run.events$.subscribe((e) => events.push(e));
        const out = await run.result;

        const completedAt = new Map<string, number>();
        const startedAt = new Map<string, number>();
        const completions = new Map<string, number>();
        events.forEach((e, i) => {
          if (e.type === 'node.completed') {
            completedAt.set(e.nodeId, i);
            completions.set(e.nodeId, (completions.get(e.nodeId) ?? 0) + 1);
          }
          if (e.type === 'node.started' && !startedAt.has(e.nodeId)) startedAt.set(e.nodeId, i);
        });
        const failed = new Set(Object.keys(out.errors));
        const blocked = new Set(out.metadata.blocked);
        const inFlightPeak = llm.peakInFlight;
        expect(inFlightPeak).toBeLessThanOrEqual(maxConcurrency);

        deps.forEach((ds, i) => {
          const id = `n${i}`;
          const depIds = ds.map((d) => `n${d}`);
          const states = [completedAt.has(id), failed.has(id), blocked.has(id)].filter(Boolean);
          expect(states, `${id} settles exactly one way`).toHaveLength(1);
          const upstreamBroken = depIds.some((d) => failed.has(d) || blocked.has(d));
          if (completedAt.has(id)) {
            expect(completions.get(id)).toBe(1);
            expect(failSet.has(id)).toBe(false);
            for (const d of depIds)
              expect(completedAt.get(d) as number).toBeLessThan(startedAt.get(id) as number);
          } else if (failed.has(id)) {
            expect(failSet.has(id)).toBe(true);
            expect(upstreamBroken).toBe(false);
          } else {
            expect(upstreamBroken).toBe(true);
            expect(startedAt.has(id)).toBe(false);
          }
        });
        expect(out.status).toBe(
          failed.size === 0 ? 'completed' : completedAt.size === 0 ? 'failed' : 'partial',
        );
      }),
      { numRuns: 150 },
    );
  });
});
