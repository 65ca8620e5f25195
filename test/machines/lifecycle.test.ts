import { type AdjacencyValue, getAdjacencyMap, getSimplePaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { type ActorLogic, createActor, fromPromise, waitFor } from 'xstate';
import {
  type LifecycleEvent,
  type LifecycleInput,
  lifecycleMachine,
  type WorkInput,
  type WorkOutcome,
} from '../../src/machines/lifecycle.js';

type GraphEvent = LifecycleEvent | { type: 'xstate.done.actor.work'; output: WorkOutcome };
type Snapshot = ReturnType<typeof lifecycleMachine.getInitialSnapshot>;
/** The machine as @xstate/graph sees it: the invoked actor's done events are events like any other. */
const logic = lifecycleMachine as unknown as ActorLogic<Snapshot, GraphEvent, LifecycleInput>;

const succeed: GraphEvent = {
  type: 'xstate.done.actor.work',
  output: { ok: true, output: 'x', finishedAt: 9 },
};
const failRetryable: GraphEvent = {
  type: 'xstate.done.actor.work',
  output: { ok: false, error: { message: 'flaky', retryable: true }, finishedAt: 9 },
};
const failFatal: GraphEvent = {
  type: 'xstate.done.actor.work',
  output: { ok: false, error: { message: 'bad config', retryable: false }, finishedAt: 9 },
};
const events: GraphEvent[] = [
  { type: 'READY' },
  { type: 'START', at: 1 },
  { type: 'RETRY', delayMs: 0 },
  { type: 'BLOCK', reason: 'upstream' },
  { type: 'UNBLOCK' },
  succeed,
  failRetryable,
  failFatal,
];
const label = (e: GraphEvent): string =>
  e.type === 'xstate.done.actor.work'
    ? e.output.ok
      ? 'DONE'
      : e.output.error.retryable
        ? 'FAIL'
        : 'FATAL'
    : e.type;
const key = (s: Snapshot) =>
  JSON.stringify([s.value, s.context.attempts, s.context.error?.retryable ?? null]);

function graph(maxAttempts: number) {
  return getAdjacencyMap(logic, {
    events,
    input: { run: 'test', nodeId: 'n', maxAttempts },
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
        'idle -BLOCK-> blocked',
        'ready -START-> running',
        'ready -BLOCK-> blocked',
        'running -DONE-> completed',
        'running -FAIL-> failed',
        'running -FATAL-> failed',
        'failed -RETRY-> ready',
        'blocked -UNBLOCK-> ready',
      ].sort(),
    );
  });

  it('refuses every event that is not in a state’s row of the table', () => {
    const allowed: Record<string, string[]> = {
      idle: ['READY', 'BLOCK'],
      ready: ['START', 'BLOCK'],
      running: [],
      failed: ['RETRY'],
      blocked: ['UNBLOCK'],
      completed: [],
    };
    const supervisorEvents = events.filter((e) => e.type !== 'xstate.done.actor.work');
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
      input: { run: 'test', nodeId: 'n', maxAttempts: 2 },
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
    expect(covered.size).toBe(9);
  });

  it('lets every reachable state reach completed, failed or blocked', () => {
    const map = graph(3);
    const settled = new Set(['completed', 'failed', 'blocked']);
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

  it('records attempts, the first start time and the duration across retries', async () => {
    let calls = 0;
    const actor = createActor(
      lifecycleMachine.provide({
        actors: {
          work: fromPromise<WorkOutcome, WorkInput>(async () => {
            calls += 1;
            return calls === 1
              ? { ok: false, error: { message: 'flaky', retryable: true }, finishedAt: 130 }
              : { ok: true, output: 'done', finishedAt: 250 };
          }),
        },
      }),
      { input: { run: 'test', nodeId: 'n', maxAttempts: 3 } },
    );
    const seen: string[] = [];
    actor.on('*', (e) => seen.push(e.type));
    actor.start();
    actor.send({ type: 'READY' });
    actor.send({ type: 'START', at: 100 });
    await waitFor(actor, (s) => s.value === 'failed');
    actor.send({ type: 'RETRY', delayMs: 0 });
    actor.send({ type: 'START', at: 200 });
    const { context } = await waitFor(actor, (s) => s.value === 'completed');
    expect(context).toMatchObject({ attempts: 2, startedAt: 100, durationMs: 150, output: 'done' });
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
});
