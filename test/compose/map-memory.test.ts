import { describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';

/** The actors registered under a system id in `system` (every run's worker actors are). */
const keyedActors = (system: { getAll(): Record<string, unknown> }) => Object.keys(system.getAll()).length;

describe("a map step's finished items", () => {
  it("leave the run's actor system: a crew item's worker actors stop when its run ends", async () => {
    const writer = new Agent({ role: 'Writer', llm: createScriptedModel(() => 'done'), maxRetries: 0 });
    const crew = new Crew({ tasks: [new Task({ name: 'write', description: 'Write {n}', agent: writer })] });
    const flow = createFlow({ name: 'many', initialState: {} })
      .start('begin', () => 'go')
      .map('each', 'begin', {
        items: () => Array.from({ length: 60 }, (_, n) => ({ n })),
        run: crew,
        concurrency: 3,
      });
    const run = flow.run();
    const system = run.actor.system as { getAll(): Record<string, unknown> };
    const seen: number[] = [];
    run.events$.subscribe((event) => {
      if (event.type === 'flow.item' && event.status === 'completed') seen.push(keyedActors(system));
    });
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(seen).toHaveLength(60);
    // Each item in flight has its crew's worker; a finished item's worker is gone. Before, every
    // finished crew's worker stayed registered (and with it its whole run) until the step ended.
    expect(Math.max(...seen)).toBeLessThanOrEqual(1 + 3 + 1);
    expect(keyedActors(system)).toBeLessThanOrEqual(1);
  });
});
