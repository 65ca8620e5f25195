import { type AdjacencyValue, getAdjacencyMap, getSimplePaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { type ActorLogic, createActor, waitFor } from 'xstate';
import {
  type LifecycleEvent,
  type LifecycleInput,
  lifecycleMachine,
  startedLifecycleMachine,
  type WorkOutcome,
  type WorkRequest,
} from '../../src/machines/lifecycle.js';

type GraphEvent = LifecycleEvent;
type Snapshot = ReturnType<typeof lifecycleMachine.getInitialSnapshot>;
/** The machine as @xstate/graph takes it (its emitted events' type aside). */
const logic = lifecycleMachine as unknown as ActorLogic<Snapshot, GraphEvent, LifecycleInput>;
const input: LifecycleInput = {
  effects: { report: () => {} },
  nodeId: 'n',
  maxAttempts: 3,
  executor: 'agent',
};

/** The executor's outcomes of attempts 1 to 3: the machine only takes the one of its current attempt. */
const outcomes: GraphEvent[] = [1, 2, 3].flatMap((attempt): GraphEvent[] => [
  {
    type: 'WORK.WAITING',
    attempt,
    waiting: {
      waitingFor: {
        kind: 'review',
        output: { name: 'n', description: '', expectedOutput: '', agent: '', raw: 'x' },
      },
    },
    at: 9,
  },
  { type: 'WORK.DONE', attempt, outcome: { ok: true, output: 'x', finishedAt: 9 } },
  {
    type: 'WORK.DONE',
    attempt,
    outcome: { ok: false, error: { message: 'flaky', retryable: true }, finishedAt: 9 },
  },
  {
    type: 'WORK.DONE',
    attempt,
    outcome: { ok: false, error: { message: 'bad config', retryable: false }, finishedAt: 9 },
  },
]);
const events: GraphEvent[] = [
  { type: 'READY' },
  { type: 'START', at: 1 },
  { type: 'RETRY', delayMs: 0 },
  { type: 'BLOCK', reason: 'upstream' },
  { type: 'UNBLOCK' },
  ...outcomes,
];
const label = (e: GraphEvent): string =>
  e.type === 'WORK.DONE'
    ? e.outcome.ok
      ? 'DONE'
      : e.outcome.error.retryable
        ? 'FAIL'
        : 'FATAL'
    : e.type === 'WORK.WAITING'
      ? 'WAIT'
      : e.type;
const key = (s: Snapshot) =>
  JSON.stringify([s.value, s.context.attempts, s.context.error?.retryable ?? null]);

function graph(maxAttempts: number) {
  return getAdjacencyMap(logic, {
    events,
    input: { ...input, maxAttempts },
    serializeState: (s) => key(s as Snapshot),
  });
}

const edges = (transitions: AdjacencyValue<Snapshot, GraphEvent>['transitions']) =>
  Object.values(transitions) as { event: GraphEvent; state: Snapshot }[];

/** Every (from → to on event) that changes the state value, from the adjacency map. */
function transitionTable(maxAttempts: number): Set<string> {
  const table = new Set<string>();
  for (const { state, transitions } of Object.values(graph(maxAttempts))) {
    for (const { event, state: next } of edges(transitions)) {
      if (next.value !== state.value) table.add(`${state.value} -${label(event)}-> ${next.value}`);
    }
  }
  return table;
}

describe('lifecycle machine', () => {
  it('allows exactly the documented transitions and no others', () => {
    expect([...transitionTable(3)].sort()).toEqual(
      [
        'idle -READY-> ready',
        'idle -START-> running',
        'idle -BLOCK-> blocked',
        'ready -START-> running',
        'ready -BLOCK-> blocked',
        'running -DONE-> completed',
        'running -FAIL-> failed',
        'running -FATAL-> failed',
        'running -WAIT-> waiting',
        'waiting -DONE-> completed',
        'waiting -FAIL-> failed',
        'waiting -FATAL-> failed',
        'failed -RETRY-> ready',
        'blocked -UNBLOCK-> ready',
      ].sort(),
    );
  });

  it('refuses every event that is not in a state’s row of the table', () => {
    const allowed: Record<string, string[]> = {
      idle: ['READY', 'START', 'BLOCK'],
      ready: ['START', 'BLOCK'],
      running: [],
      waiting: [],
      failed: ['RETRY'],
      blocked: ['UNBLOCK'],
      completed: [],
    };
    const supervisorEvents = events.filter((e) => e.type !== 'WORK.DONE' && e.type !== 'WORK.WAITING');
    for (const { state } of Object.values(graph(3))) {
      const row = allowed[String(state.value)] ?? [];
      for (const event of supervisorEvents) {
        const expected = row.includes(event.type) && !(event.type === 'RETRY' && !state.can(event));
        expect(state.can(event as LifecycleEvent), `${String(state.value)} on ${event.type}`).toBe(expected);
      }
    }
  });

  it('covers every transition of the table by some path from idle', () => {
    const paths = getSimplePaths(logic, {
      events,
      input: { ...input, maxAttempts: 2 },
      serializeState: (s) => key(s as Snapshot),
    });
    const covered = new Set<string>();
    for (const path of paths) {
      let from = 'idle';
      for (const step of path.steps) {
        const to = String(step.state.value);
        if (to !== from) covered.add(`${from} -${label(step.event as GraphEvent)}-> ${to}`);
        from = to;
      }
    }
    expect([...covered].sort()).toEqual([...transitionTable(2)].sort());
    expect(covered.size).toBe(14);
  });

  it('lets every reachable state reach completed, failed, waiting or blocked', () => {
    const map = graph(3);
    // A run that waits ends its run's part here (its run pauses); its work may still end it (a sleep).
    const settled = new Set(['completed', 'failed', 'waiting', 'blocked']);
    const reaches = new Map<string, boolean>();
    for (const [id, { state }] of Object.entries(map)) reaches.set(id, settled.has(String(state.value)));
    let changed = true;
    while (changed) {
      changed = false;
      for (const [id, { transitions }] of Object.entries(map)) {
        if (reaches.get(id)) continue;
        if (edges(transitions).some(({ state }) => reaches.get(key(state)))) {
          reaches.set(id, true);
          changed = true;
        }
      }
    }
    expect([...reaches].filter(([, ok]) => !ok)).toEqual([]);
    // completed is reached and has no way out: the supervisor stops the run when it hears of it.
    const completed = Object.values(map).filter(({ state }) => state.value === 'completed');
    expect(completed.length).toBeGreaterThan(0);
    for (const { transitions } of completed) {
      expect(edges(transitions).filter(({ state }) => state.value !== 'completed')).toEqual([]);
    }
  });

  it('retries only while attempts remain and only retryable failures', () => {
    const retryStates = Object.values(graph(2))
      .filter(({ state }) => state.value === 'failed')
      .map(({ state }) => ({
        attempts: state.context.attempts,
        retryable: state.context.error?.retryable,
        canRetry: state.can({ type: 'RETRY', delayMs: 0 }),
      }));
    expect(retryStates).toEqual(
      expect.arrayContaining([
        { attempts: 1, retryable: true, canRetry: true },
        { attempts: 1, retryable: false, canRetry: false },
        { attempts: 2, retryable: true, canRetry: false },
        { attempts: 2, retryable: false, canRetry: false },
      ]),
    );
    expect(retryStates).toHaveLength(4);
  });

  it('asks its executor for each attempt and records attempts, the first start and the duration', async () => {
    const requests: WorkRequest[] = [];
    const seen: string[] = [];
    const actor = createActor(
      lifecycleMachine.provide({
        actions: { requestWork: (_, params) => requests.push({ type: 'WORK', ...params }) },
      }),
      { input: { ...input, effects: { report: (e) => seen.push(e.type) } } },
    );
    actor.start();
    actor.send({ type: 'START', at: 100 });
    expect(actor.getSnapshot().value).toBe('running');
    const flaky: WorkOutcome = { ok: false, error: { message: 'flaky', retryable: true }, finishedAt: 130 };
    actor.send({ type: 'WORK.DONE', attempt: 1, outcome: flaky });
    await waitFor(actor, (s) => s.value === 'failed');
    actor.send({ type: 'RETRY', delayMs: 0 });
    expect(actor.getSnapshot().value).toBe('ready');
    actor.send({ type: 'START', at: 200 });
    // A late outcome of an earlier attempt is ignored.
    actor.send({ type: 'WORK.DONE', attempt: 1, outcome: { ok: true, output: 'stale', finishedAt: 210 } });
    expect(actor.getSnapshot().value).toBe('running');
    actor.send({ type: 'WORK.DONE', attempt: 2, outcome: { ok: true, output: 'done', finishedAt: 250 } });
    const { context } = await waitFor(actor, (s) => s.value === 'completed');
    expect(context).toMatchObject({ attempts: 2, startedAt: 100, durationMs: 150, output: 'done' });
    expect(requests).toEqual([
      { type: 'WORK', nodeId: 'n', attempt: 1 },
      { type: 'WORK', nodeId: 'n', attempt: 2 },
    ]);
    expect(seen).toEqual([
      'node.ready',
      'node.started',
      'node.failed',
      'node.retrying',
      'node.ready',
      'node.started',
      'node.completed',
    ]);
  });

  it('starts its first attempt on creation as the started lifecycle, without a START event', () => {
    const requests: WorkRequest[] = [];
    const seen: string[] = [];
    const actor = createActor(
      startedLifecycleMachine.provide({
        actions: { requestWork: (_, params) => requests.push({ type: 'WORK', ...params }) },
      }),
      { input: { ...input, startAt: 500, effects: { report: (e) => seen.push(e.type) } } },
    );
    actor.start();
    expect(actor.getSnapshot().value).toBe('running');
    expect(actor.getSnapshot().context).toMatchObject({ attempts: 1, startedAt: 500 });
    expect(seen).toEqual(['node.ready', 'node.started']);
    expect(requests).toEqual([{ type: 'WORK', nodeId: 'n', attempt: 1 }]);
    // From there it is the same lifecycle: a retryable failure goes back through ready.
    actor.send({
      type: 'WORK.DONE',
      attempt: 1,
      outcome: { ok: false, error: { message: 'flaky', retryable: true }, finishedAt: 510 },
    });
    actor.send({ type: 'RETRY', delayMs: 0 });
    actor.send({ type: 'START', at: 600 });
    expect(actor.getSnapshot().value).toBe('running');
    expect(actor.getSnapshot().context).toMatchObject({ attempts: 2, startedAt: 500 });
    expect(seen).toEqual([
      'node.ready',
      'node.started',
      'node.failed',
      'node.retrying',
      'node.ready',
      'node.started',
    ]);
  });

  it('shares every state of the lifecycle with the started lifecycle', () => {
    const shape = (machine: typeof lifecycleMachine) =>
      Object.fromEntries(
        Object.entries(machine.root.states).map(([name, node]) => [name, Object.keys(node.on).sort()]),
      );
    expect(shape(startedLifecycleMachine)).toEqual(shape(lifecycleMachine));
    expect(lifecycleMachine.root.initial.target.map((n) => n.key)).toEqual(['idle']);
    expect(startedLifecycleMachine.root.initial.target.map((n) => n.key)).toEqual(['running']);
  });
});
