import { describe, expect, it } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { Crew, type ManagerFunctions, type StatecrewEvent, Task } from '../../src/index.js';
import { agent, echoModel } from '../helpers.js';

function crewOf(n: number, options: { hierarchical?: boolean } = {}) {
  const llm = echoModel();
  const worker = agent('Worker', llm);
  const tasks = Array.from(
    { length: n },
    (_, i) => new Task({ name: `t${i + 1}`, description: `step ${i + 1}`, agent: worker }),
  );
  const manager: ManagerFunctions = {
    allocate: () => 'Worker',
    synthesize: (_goal, outputs) => outputs.join('+'),
  };
  return options.hierarchical
    ? new Crew({ tasks, agents: [worker], process: 'hierarchical', manager })
    : new Crew({ tasks });
}

function actorsSeen(events: InspectionEvent[]): AnyActorRef[] {
  return events.filter((e) => e.type === '@xstate.actor').map((e) => e.actorRef as AnyActorRef);
}

describe('events and inspection', () => {
  it('streams typed lifecycle events in order and completes after run.completed', async () => {
    const run = crewOf(2).run({ executionId: 'run-1' });
    const events: StatecrewEvent[] = [];
    let completed = false;
    run.events$.subscribe({ next: (e) => events.push(e), complete: () => (completed = true) });
    const out = await run.result;
    expect(events.map((e) => `${e.type}${'nodeId' in e ? `:${e.nodeId}` : ''}`)).toEqual([
      'run.started',
      'node.ready:t1',
      'node.started:t1',
      'model.call:t1',
      'node.completed:t1',
      'node.ready:t2',
      'node.started:t2',
      'model.call:t2',
      'node.completed:t2',
      'run.completed',
    ]);
    expect(events.every((e) => e.runId === 'run-1')).toBe(true);
    expect(events.at(-1)).toMatchObject({
      type: 'run.completed',
      status: 'completed',
      totalTimeMs: out.totalTimeMs,
    });
    expect(events.find((e) => e.type === 'node.completed')).toMatchObject({
      output: { name: 't1', raw: 'Worker: step 1', agent: 'Worker' },
    });
    expect(completed).toBe(true);
    expect(run.id).toBe('run-1');
  });

  it('emits delegation and manager.call events for a hierarchical crew', async () => {
    const run = crewOf(2, { hierarchical: true }).run();
    const types: string[] = [];
    run.events$.subscribe((e) => types.push(e.type));
    await run.result;
    expect(types.filter((t) => t === 'delegation' || t === 'manager.call')).toEqual([
      'manager.call',
      'delegation',
      'manager.call',
      'delegation',
      'manager.call',
    ]);
  });

  it('shows every task run as a distinct actor whose parent is the supervisor, each with its agent run', async () => {
    const inspected: InspectionEvent[] = [];
    const run = crewOf(3).run({ inspect: (e) => inspected.push(e) });
    await run.result;
    const actors = actorsSeen(inspected);
    const taskRuns = actors.filter((a) => a._parent === run.actor);
    expect(taskRuns.map((a) => a.id)).toEqual(['t1', 't2', 't3']);
    expect(new Set(taskRuns.map((a) => a.sessionId)).size).toBe(3);
    const agentRuns = actors.filter((a) => a._parent !== undefined && taskRuns.includes(a._parent));
    expect(agentRuns.map((a) => a._parent?.id)).toEqual(['t1', 't2', 't3']);
    expect(Object.keys(run.actor.getSnapshot().children)).toEqual([]);
  });

  it('shows a retried task as one actor with two agent runs', async () => {
    let calls = 0;
    const flaky = agent('Flaky', () => {
      calls += 1;
      if (calls === 1) throw new Error('once');
      return 'ok';
    });
    const inspected: InspectionEvent[] = [];
    const crew = new Crew({ tasks: [new Task({ name: 'only', description: 'x', agent: flaky })] });
    const run = crew.run({ inspect: (e) => inspected.push(e) });
    await run.result;
    const actors = actorsSeen(inspected);
    const taskRuns = actors.filter((a) => a._parent === run.actor);
    expect(taskRuns).toHaveLength(1);
    expect(actors.filter((a) => a._parent === taskRuns[0])).toHaveLength(2);
  });
});
