import { describe, expect, it } from 'vitest';
import { Agent, Crew, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { agent, echoModel, gatedModel } from '../helpers.js';

const tasksFor = (worker: Agent, n: number) =>
  Array.from(
    { length: n },
    (_, i) => new Task({ name: `p${i + 1}`, description: `part ${i + 1}`, agent: worker }),
  );

describe('parallel process', () => {
  it.each([1, 2, 8])(
    'keeps at most %i task(s) in flight and still runs every task exactly once',
    async (cap) => {
      const llm = echoModel();
      const out = await new Crew({
        tasks: tasksFor(agent('W', llm), 20),
        process: 'parallel',
        maxConcurrency: cap,
      }).kickoff();
      expect(llm.peakInFlight).toBe(cap);
      expect(llm.calls.map((c) => c.prompt.split('Task: ')[1]).sort()).toEqual(
        Array.from({ length: 20 }, (_, i) => `part ${i + 1}`).sort(),
      );
      expect(out.status).toBe('completed');
      expect(Object.keys(out.nodeResults)).toHaveLength(20);
    },
  );

  it('defaults to 8 in flight and gives tasks no context', async () => {
    const llm = echoModel();
    await new Crew({ tasks: tasksFor(agent('W', llm), 12), process: 'parallel' }).kickoff();
    expect(llm.peakInFlight).toBe(8);
    expect(llm.calls.every((c) => c.context === '')).toBe(true);
  });

  it('starts the next task as soon as a slot frees, whichever task finished', async () => {
    const gate = gatedModel();
    const run = new Crew({
      tasks: tasksFor(agent('W', gate.model), 3),
      process: 'parallel',
      maxConcurrency: 2,
    }).kickoff();
    await gate.whenCalled('part 2');
    expect(gate.started).toEqual(['part 1', 'part 2']);
    gate.release('part 2');
    await gate.whenCalled('part 3');
    gate.release('part 3');
    gate.release('part 1');
    const out = await run;
    expect(out.nodes.map((n) => n.nodeId)).toEqual(['p2', 'p3', 'p1']);
    expect(out.raw).toBe('done part 3');
  });

  it('isolates failures: the others complete, status partial; all failing is failed', async () => {
    const llm = createScriptedModel((r) => (r.prompt.endsWith('part 2') ? new Error('boom') : 'ok'));
    const worker = new Agent({ role: 'W', llm, maxRetries: 0 });
    const out = await new Crew({ tasks: tasksFor(worker, 4), process: 'parallel' }).kickoff();
    expect(out.status).toBe('partial');
    expect(out.errors).toEqual({ p2: 'boom' });
    expect(Object.keys(out.nodeResults).sort()).toEqual(['p1', 'p3', 'p4']);
    expect(out.metadata.blocked).toEqual([]);
    expect(out.output).toEqual({ p1: 'ok', p3: 'ok', p4: 'ok' });

    const down = new Agent({ role: 'W', llm: createScriptedModel(() => new Error('down')), maxRetries: 0 });
    const failed = await new Crew({ tasks: tasksFor(down, 3), process: 'parallel' }).kickoff();
    expect(failed.status).toBe('failed');
    expect(failed.output).toEqual({});
  });

  it('refuses a task with a context, pointing to the graph process: at construction, or at kickoff when set after', async () => {
    const llm = echoModel();
    const [a, b] = tasksFor(agent('W', llm), 2) as [Task, Task];
    b.context = [a];
    expect(() => new Crew({ tasks: [a, b], process: 'parallel' })).toThrow(
      expect.objectContaining({
        code: 'context_in_parallel',
        message: expect.stringContaining("process: 'graph'"),
      }),
    );
    b.context = undefined;
    const crew = new Crew({ tasks: [a, b], process: 'parallel' });
    b.context = [a];
    await expect(crew.kickoff()).rejects.toMatchObject({ code: 'context_in_parallel' });
    expect(llm.calls).toHaveLength(0);
  });

  it('refuses a maxConcurrency that is not a positive integer', () => {
    expect(() => new Crew({ tasks: [], process: 'parallel', maxConcurrency: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_option' }),
    );
  });
});
