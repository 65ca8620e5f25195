import { describe, expect, it } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { Agent, Crew, type ManagerFunctions, type StatecrewEvent, Task } from '../../src/index.js';
import type { WorkRequest } from '../../src/machines/lifecycle.js';
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
    // A task run's start says what its agent is asked and the context it reads.
    expect(events.filter((e) => e.type === 'node.started').map((e) => [e.prompt, e.context])).toEqual([
      ['You are Worker.\nTask: step 1', ''],
      ['You are Worker.\nTask: step 2', 'Worker: step 1'],
    ]);
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

  it('shows every task run and the agent as actors under the supervisor, and the work between them', async () => {
    const inspected: InspectionEvent[] = [];
    const run = crewOf(3).run({ inspect: (e) => inspected.push(e) });
    await run.result;
    const actors = actorsSeen(inspected);
    const underSupervisor = actors.filter((a) => a._parent === run.actor);
    expect(underSupervisor.map((a) => a.id)).toEqual(['Worker', 't1', 't2', 't3']);
    expect(new Set(underSupervisor.map((a) => a.sessionId)).size).toBe(4);
    const [agentActor, ...taskRuns] = underSupervisor as [AnyActorRef, ...AnyActorRef[]];
    // No actor per attempt: nothing has a task run as its parent.
    expect(actors.filter((a) => a._parent !== undefined && taskRuns.includes(a._parent))).toEqual([]);
    const sent = inspected.flatMap((e) =>
      e.type === '@xstate.event' && (e.event.type === 'WORK' || e.event.type === 'WORK.DONE')
        ? [
            `${(e.sourceRef as AnyActorRef | undefined)?.id ?? '?'} -${e.event.type}-> ${(e.actorRef as AnyActorRef).id}`,
          ]
        : [],
    );
    expect(sent.filter((line) => line.includes('-WORK->'))).toEqual([
      't1 -WORK-> Worker',
      't2 -WORK-> Worker',
      't3 -WORK-> Worker',
    ]);
    expect(sent.filter((line) => line.includes('WORK.DONE')).map((l) => l.split('-> ')[1])).toEqual([
      't1',
      't2',
      't3',
    ]);
    expect(agentActor.id).toBe('Worker');
    expect(Object.keys(run.actor.getSnapshot().children)).toEqual([]);
  });

  it('shows a retried task as one actor that asks its agent twice', async () => {
    let calls = 0;
    const flaky = new Agent({
      role: 'Flaky',
      retryDelayMs: 0,
      llm: () => {
        calls += 1;
        if (calls === 1) throw new Error('once');
        return 'ok';
      },
    });
    const inspected: InspectionEvent[] = [];
    const crew = new Crew({ tasks: [new Task({ name: 'only', description: 'x', agent: flaky })] });
    const run = crew.run({ inspect: (e) => inspected.push(e) });
    await run.result;
    const taskRuns = actorsSeen(inspected).filter((a) => a._parent === run.actor && a.id === 'only');
    expect(taskRuns).toHaveLength(1);
    const attempts = inspected.flatMap((e) =>
      e.type === '@xstate.event' && e.event.type === 'WORK'
        ? [(e.event as unknown as WorkRequest).attempt]
        : [],
    );
    expect(attempts).toEqual([1, 2]);
  });

  it('shows a hierarchical manager and a loop judge as one actor each for the whole run', async () => {
    const inspected: InspectionEvent[] = [];
    const run = crewOf(3, { hierarchical: true }).run({ inspect: (e) => inspected.push(e) });
    await run.result;
    const managers = actorsSeen(inspected).filter((a) => a.id === 'manager');
    expect(managers.map((a) => a._parent)).toEqual([run.actor]);
    const asked = inspected.flatMap((e) =>
      e.type === '@xstate.event' && e.event.type === 'WORK' && (e.actorRef as AnyActorRef).id === 'manager'
        ? [(e.event as unknown as WorkRequest).nodeId]
        : [],
    );
    expect(asked).toEqual(['allocate:0', 'allocate:1', 'allocate:2', 'synthesize']);

    const judged: InspectionEvent[] = [];
    let verdicts = 0;
    const loop = new Crew({
      tasks: [new Task({ name: 'draft', description: 'draft', agent: agent('Writer', echoModel()) })],
      process: 'loop',
      loop: { condition: 'good', judge: () => (++verdicts === 2 ? 'YES' : 'NO'), maxIterations: 5 },
    });
    const loopRun = loop.run({ inspect: (e) => judged.push(e) });
    await loopRun.result;
    expect(actorsSeen(judged).filter((a) => a.id === 'judge')).toHaveLength(1);
    const asks = judged.filter(
      (e) =>
        e.type === '@xstate.event' && e.event.type === 'WORK' && (e.actorRef as AnyActorRef).id === 'judge',
    );
    expect(asks).toHaveLength(2);
  });
});
