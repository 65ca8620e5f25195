import { describe, expect, it } from 'vitest';
import { Crew, type CrewOutput, type ManagerFunctions, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { agent, tickingClock } from '../helpers.js';

const manager: ManagerFunctions = {
  allocate: () => 'Worker',
  synthesize: (_g, outputs) => outputs.join(' + '),
};

async function runBoth() {
  const results: Record<string, CrewOutput> = {};
  for (const process of ['sequential', 'hierarchical'] as const) {
    const llm = createScriptedModel((request) => ({
      text: `${request.prompt.split('Task: ')[1]}!`,
      usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.01 },
    }));
    const worker = agent('Worker', llm);
    const first = new Task({ name: 'first', description: 'one', agent: worker });
    const second = new Task({ name: 'second', description: 'two', agent: worker });
    const crew =
      process === 'sequential'
        ? new Crew({ tasks: [first, second] })
        : new Crew({ tasks: [first, second], agents: [worker], process, manager });
    const out = await crew.kickoff({ clock: tickingClock(), executionId: `id-${process}` });
    expect(out.outputOf(first)?.raw).toBe('one!');
    expect(out.outputOf(new Task({ description: 'elsewhere' }))).toBeUndefined();
    expect(out.outputOf({ name: first.name })?.raw).toBe('one!');
    expect(out.outputOf({ name: 'no such task' })).toBeUndefined();
    results[process] = out;
  }
  return results as Record<'sequential' | 'hierarchical', CrewOutput>;
}

describe('the result contract', () => {
  it('fills every field the same way for sequential and hierarchical', async () => {
    const { sequential, hierarchical } = await runBoth();
    for (const out of [sequential, hierarchical]) {
      expect(Object.keys(out).sort()).toEqual(
        [
          'delegations',
          'errors',
          'executionLog',
          'failures',
          'managerCalls',
          'metadata',
          'nodeResults',
          'nodes',
          'output',
          'raw',
          'status',
          'summary',
          'tasksOutput',
          'totalTimeMs',
          'usage',
        ].sort(),
      );
      // outputOf is a method that JSON, spreads and the state codec leave out.
      expect(typeof out.outputOf).toBe('function');
      expect(out.status).toBe('completed');
      expect(out.tasksOutput).toEqual([
        { name: 'first', description: 'one', expectedOutput: '', agent: 'Worker', raw: 'one!' },
        { name: 'second', description: 'two', expectedOutput: '', agent: 'Worker', raw: 'two!' },
      ]);
      expect(out.nodeResults).toEqual({ first: 'one!', second: 'two!' });
      const workers = { inputTokens: 20, outputTokens: 10, totalTokens: 30, calls: 2, costUsd: 0.02 };
      // The manager here is a pair of functions: it spends nothing.
      const manager = { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 };
      // Every call was the Worker's own: its usage by role is the workers' usage.
      expect(out.usage).toEqual({ ...workers, manager, workers, agents: { Worker: workers } });
      expect(out.nodes.map((n) => n.usage.totalTokens)).toEqual([15, 15]);
      expect(out.nodes[0]).toMatchObject({
        nodeId: 'first',
        name: 'first',
        agent: 'Worker',
        status: 'completed',
        attempts: 1,
      });
      expect(out.nodes[0]?.durationMs).toBeGreaterThan(0);
      expect(out.executionLog.map((e) => e.nodeId)).toEqual(['first', 'second']);
      expect(out.errors).toEqual({});
      expect(out.summary).toBe('2 completed, 0 failed, 0 blocked');
      expect(out.totalTimeMs).toBeGreaterThan(0);
    }
    expect(sequential).toMatchObject({ raw: 'two!', output: 'two!', managerCalls: 0, delegations: [] });
    expect(sequential.metadata).toEqual({
      executionId: 'id-sequential',
      process: 'sequential',
      leaves: ['second'],
      blocked: [],
    });
    expect(hierarchical).toMatchObject({ raw: 'one! + two!', output: 'one! + two!', managerCalls: 3 });
    expect(hierarchical.metadata).toEqual({
      executionId: 'id-hierarchical',
      process: 'hierarchical',
      leaves: ['synthesis'],
      blocked: [],
    });
  });

  it('survives JSON: the result is plain data apart from outputOf', async () => {
    const { sequential } = await runBoth();
    const copy = JSON.parse(JSON.stringify(sequential));
    const { outputOf: _dropped, ...data } = sequential;
    expect(copy).toEqual(data);
  });
});
