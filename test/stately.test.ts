import { createInspector, type StatelyActorEvent, type StatelyInspectionEvent } from '@statelyai/inspect';
import { getShortestPaths, getSimplePaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { type AnyStateMachine, createMachine } from 'xstate';
import {
  Crew,
  createFlow,
  MemoryStore,
  type PlainMachine,
  type PlainStateConfig,
  Task,
} from '../src/index.js';
import { agent, echoModel } from './helpers.js';

/**
 * An inspector adapter that keeps what it is sent, offline: `until` resolves once the messages
 * sent so far satisfy a predicate (the inspector sends each message on a later macrotask).
 */
function offlineAdapter() {
  const sent: StatelyInspectionEvent[] = [];
  const waiters: { ready: (sent: readonly StatelyInspectionEvent[]) => boolean; resolve: () => void }[] = [];
  return {
    sent,
    send(event: StatelyInspectionEvent) {
      sent.push(event);
      for (const waiter of [...waiters]) {
        if (!waiter.ready(sent)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
    until(ready: (sent: readonly StatelyInspectionEvent[]) => boolean): Promise<void> {
      if (ready(sent)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ ready, resolve }));
    },
  };
}

const actorsIn = (sent: readonly StatelyInspectionEvent[]) =>
  sent.filter((e): e is StatelyActorEvent => e.type === '@xstate.actor');

function triageCrew() {
  const llm = echoModel();
  return new Crew({
    tasks: [
      new Task({ name: 'research', description: 'Research AI', agent: agent('Researcher', llm) }),
      new Task({ name: 'write', description: 'Write it up', agent: agent('Writer', llm) }),
    ],
  });
}

describe('a run watched with the Stately inspector', () => {
  it('shows the supervisor, every task run and every agent actor, with the events between them', async () => {
    const adapter = offlineAdapter();
    const inspector = createInspector(adapter);
    const run = triageCrew().run({ inspect: inspector.inspect, executionId: 'exec-1' });
    await run.result;
    // The inspector sends on later macrotasks than the run's: wait until it told of the supervisor's end.
    await adapter.until((sent) => {
      const root = actorsIn(sent).find((a) => a.name === 'sequential:exec-1');
      return sent.some(
        (e) =>
          e.type === '@xstate.snapshot' && e.sessionId === root?.sessionId && e.snapshot.status === 'done',
      );
    });
    const actors = actorsIn(adapter.sent);
    const byName = new Map(actors.map((a) => [a.name, a]));
    const supervisor = byName.get('sequential:exec-1');
    expect(supervisor?.parentId).toBeUndefined();
    expect(JSON.parse(supervisor?.definition ?? '{}')).toMatchObject({ id: 'sequential' });
    expect(actors.map((a) => a.name).sort()).toEqual(
      ['sequential:exec-1', 'research', 'write', 'Researcher', 'Writer'].sort(),
    );
    for (const actor of actors) expect(actor.rootId).toBe(supervisor?.sessionId);
    for (const name of ['research', 'write', 'Researcher', 'Writer']) {
      expect(byName.get(name)?.parentId, name).toBe(supervisor?.sessionId);
    }

    const sessionOf = (name: string) => byName.get(name)?.sessionId;
    const eventsTo = (name: string) =>
      adapter.sent.flatMap((e) =>
        e.type === '@xstate.event' && e.sessionId === sessionOf(name)
          ? [{ from: e.sourceId, type: e.event.type }]
          : [],
      );
    // A task run sends its work to its agent's actor, and tells the supervisor when it completed.
    expect(eventsTo('Researcher')).toContainEqual({ from: sessionOf('research'), type: 'WORK' });
    expect(eventsTo('Writer')).toContainEqual({ from: sessionOf('write'), type: 'WORK' });
    expect(eventsTo('sequential:exec-1')).toEqual(
      expect.arrayContaining([
        { from: sessionOf('research'), type: 'NODE.COMPLETED' },
        { from: sessionOf('write'), type: 'NODE.COMPLETED' },
      ]),
    );
    // A task run's snapshots go by as its lifecycle does.
    const values = adapter.sent.flatMap((e) =>
      e.type === '@xstate.snapshot' && e.sessionId === sessionOf('research')
        ? [(e.snapshot as { value?: unknown }).value]
        : [],
    );
    expect(values).toContain('running');
    expect(values).toContain('completed');
  });
});

/** Every event type a plain machine's states react to. */
function eventTypes(config: PlainStateConfig, into = new Set<string>()): Set<string> {
  for (const type of Object.keys(config.on ?? {})) into.add(type);
  for (const state of Object.values(config.states ?? {})) eventTypes(state, into);
  return into;
}

/** Each way to a final state, walked with `@xstate/graph`: its events and where it ends. */
function walks(machine: AnyStateMachine, events: readonly string[], walk: 'simple' | 'shortest'): string[] {
  const options = {
    events: events.map((type) => ({ type })),
    toState: (state: { status: string }) => state.status === 'done',
  };
  const paths = walk === 'simple' ? getSimplePaths(machine, options) : getShortestPaths(machine, options);
  return paths
    .map((p) => `${p.steps.map((s) => s.event.type).join(' ')} => ${JSON.stringify(p.state.value)}`)
    .sort();
}

/**
 * Checks a machine's two JSON forms: its config (what an inspector sends as the definition) is a
 * machine `createMachine` takes back, walked by `@xstate/graph` to the same ends as the original;
 * and the machine built back serializes (`toJSON()`: the resolved definition) as the original does.
 */
function expectRoundTrip(machine: PlainMachine, walk: 'simple' | 'shortest'): void {
  const events = [...eventTypes(machine.config as PlainStateConfig)];
  const original = walks(machine, events, walk);
  expect(original.length).toBeGreaterThan(0);
  const copy = createMachine(JSON.parse(JSON.stringify(machine.config)));
  expect(copy.config).toEqual(machine.config);
  expect(walks(copy, events, walk)).toEqual(original);
  expect(JSON.stringify(copy)).toBe(JSON.stringify(machine));
}

describe('crew.toMachine() and flow.toMachine() for Stately', () => {
  it('export every process as JSON that createMachine takes back and @xstate/graph walks alike', () => {
    const worker = agent('Worker', echoModel());
    const a = new Task({ name: 'a', description: 'a', agent: worker });
    const b = new Task({ name: 'b', description: 'b', agent: worker, context: [a] });
    // Parallel tasks read no context: a crew of them with one is refused when it is built.
    const c = new Task({ name: 'c', description: 'c', agent: worker });
    for (const process of ['sequential', 'hierarchical', 'parallel', 'graph', 'loop'] as const) {
      const crew = new Crew({
        tasks: process === 'parallel' ? [a, c] : [a, b],
        agents: [worker],
        process,
        manager: { allocate: () => 'Worker', synthesize: () => 'synthesis' },
        loop: { condition: 'it is done', judge: () => 'YES', maxIterations: 2 },
      });
      expectRoundTrip(crew.toMachine(), process === 'hierarchical' ? 'shortest' : 'simple');
    }
  });

  it('export a flow with routers and a human step the same way, its final state reached alike', () => {
    const noop = () => undefined;
    const flow = createFlow({ name: 'refund', initialState: { amount: 0 }, store: new MemoryStore() })
      .start('check', noop)
      .router('size', 'check', () => 'small', { routes: ['small', 'large'] })
      .human('approval', 'large', { routes: ['approved', 'rejected'] })
      .listen('pay', 'small', noop)
      .listen('payApproved', 'approved', noop)
      .listen('decline', 'rejected', noop);
    const machine = flow.toMachine();
    expectRoundTrip(machine, 'simple');
    const ends = walks(machine, [...eventTypes(machine.config as PlainStateConfig)], 'simple');
    expect(ends.every((walk) => walk.endsWith('=> "completed"'))).toBe(true);
    expect(ends).toHaveLength(3);
  });
});
