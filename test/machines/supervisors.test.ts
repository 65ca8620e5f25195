import { getAdjacencyMap } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import type { AnyActorRef, AnyStateMachine, EventObject } from 'xstate';
import { createFlow, failed } from '../../src/index.js';
import {
  createFlowMachine,
  type FlowContext,
  NO_FLOW_EFFECTS,
} from '../../src/machines/flow/flow-machine.js';
import { graphMachine } from '../../src/machines/graph.js';
import { hierarchicalMachine } from '../../src/machines/hierarchical.js';
import { loopMachine } from '../../src/machines/loop.js';
import { parallelMachine } from '../../src/machines/parallel.js';
import { sequentialMachine } from '../../src/machines/sequential.js';

const run = { id: 'run' } as AnyActorRef;
/** Effects that do nothing: `@xstate/graph` never runs the actions that call them anyway. */
const effects = new Proxy({}, { get: () => () => undefined });
/** An advisor's answer (a manager's, a judge's), as its actor sends it. */
const answer = (output: unknown) => ({
  type: 'WORK.DONE',
  attempt: 1,
  outcome: { ok: true, output, finishedAt: 0 },
});
const refusal = {
  type: 'WORK.DONE',
  attempt: 1,
  outcome: { ok: false, error: { message: 'x', retryable: false }, finishedAt: 0 },
};
const settled = [
  { type: 'NODE.COMPLETED', nodeId: 't', run },
  { type: 'xstate.error.actor.t', error: new Error('crash'), actorId: 't' },
  { type: 'NODE.FAILED', nodeId: 't', willRetry: true, run },
  { type: 'NODE.FAILED', nodeId: 't', willRetry: false, run },
  { type: 'NODE.WAITING', nodeId: 't', run, waiting: { waitingFor: { kind: 'review', output: {} } } },
  { type: 'ABORT', runs: [] },
];

interface Proof {
  /** State values reached. */
  reached: Set<string>;
  /** Reached states from which no final state can be reached. */
  stuck: string[];
}

/** Walks a machine's state graph with @xstate/graph: what it reaches, and what cannot end. */
function prove(
  machine: AnyStateMachine,
  events: EventObject[],
  input?: unknown,
  key = (s: { value: unknown; context: unknown }) => JSON.stringify([s.value, s.context]),
): Proof {
  const map = getAdjacencyMap(machine, { events, input, serializeState: key });
  const entries = Object.entries(map) as [
    string,
    { state: { value: unknown; status: string }; transitions: Record<string, { state: never }> },
  ][];
  const canEnd = new Set(entries.filter(([, v]) => v.state.status === 'done').map(([k]) => k));
  let grew = true;
  while (grew) {
    grew = false;
    for (const [k, v] of entries) {
      if (!canEnd.has(k) && Object.values(v.transitions).some((t) => canEnd.has(key(t.state)))) {
        canEnd.add(k);
        grew = true;
      }
    }
  }
  return {
    reached: new Set(entries.map(([, v]) => JSON.stringify(v.state.value))),
    stuck: entries.filter(([k]) => !canEnd.has(k)).map(([k]) => k),
  };
}

const stateNames = (machine: AnyStateMachine) =>
  Object.keys(machine.root.states).map((s) => JSON.stringify(s));
const union = (...proofs: Proof[]) => new Set(proofs.flatMap((p) => [...p.reached]));

describe('every supervisor machine is proven to end, with no unreachable state', () => {
  it('sequential', () => {
    const proof = prove(sequentialMachine, settled, { effects, total: 2 });
    expect(proof.stuck).toEqual([]);
    expect([...proof.reached].sort()).toEqual(
      stateNames(sequentialMachine)
        .filter((s) => s !== '"next"')
        .sort(),
    );
  });

  it('hierarchical', () => {
    const events = [...settled, answer('Writer'), refusal];
    const proof = prove(hierarchicalMachine, events, { effects, total: 2, manager: 'm' });
    expect(proof.stuck).toEqual([]);
    expect([...proof.reached].sort()).toEqual(
      stateNames(hierarchicalMachine)
        .filter((s) => s !== '"next"')
        .sort(),
    );
  });

  it('parallel', () => {
    const proof = prove(parallelMachine, settled, { effects, total: 3, maxConcurrency: 2 });
    expect(proof.stuck).toEqual([]);
    expect([...proof.reached].sort()).toEqual(stateNames(parallelMachine).sort());
  });

  it('loop', () => {
    const events = [...settled, answer('yes'), answer('no'), refusal];
    const proof = prove(loopMachine, events, { effects, total: 2, maxIterations: 3, judge: 'j' });
    expect(proof.stuck).toEqual([]);
    expect([...proof.reached].sort()).toEqual(
      stateNames(loopMachine)
        .filter((s) => s !== '"next"')
        .sort(),
    );
  });

  it('graph (readiness is the runtime scheduler’s: proven under both answers of allSettled)', () => {
    const open = prove(graphMachine.provide({ guards: { allSettled: () => false } }), settled, {
      effects,
    });
    const closed = prove(graphMachine.provide({ guards: { allSettled: () => true } }), settled, {
      effects,
    });
    expect(closed.stuck).toEqual([]);
    expect(open.stuck).toEqual([]);
    expect([...union(open, closed)].sort()).toEqual(stateNames(graphMachine).sort());
  });

  it('flow (its context holds the rounds: proven for a flow with a handled failure and a wait)', () => {
    const flow = createFlow({ name: 'f', initialState: {} })
      .start('a', () => 'a')
      .listen('mend', failed('a'), () => 'mended')
      .wait('w', 'a', { event: 'e' });
    const machine = createFlowMachine(flow.definition);
    const pending = { kind: 'event', step: 'w', nodeId: 'w', event: 'e', payload: 'a' } as const;
    const crewWait = { kind: 'crew', step: 'mend', nodeId: 'mend', crew: 'c', executionId: 'x', pending: [] };
    const events = [
      { type: 'START' },
      { type: 'NODE.COMPLETED', nodeId: 'a', run },
      { type: 'NODE.FAILED', nodeId: 'a', willRetry: false, run },
      { type: 'NODE.COMPLETED', nodeId: 'mend', run },
      { type: 'NODE.FAILED', nodeId: 'mend', willRetry: false, run },
      { type: 'STEP.WAITING', pending },
      // A step whose crew paused waits too; a sleeping one runs on.
      {
        type: 'NODE.WAITING',
        nodeId: 'mend',
        run,
        waiting: { waitingFor: { kind: 'crew' }, keep: crewWait },
      },
      { type: 'NODE.WAITING', nodeId: 'a', run, waiting: { waitingFor: { kind: 'sleep', wakeAt: 1 } } },
      { type: 'xstate.error.actor.a', error: new Error('crash'), actorId: 'a' },
      { type: 'ABORT', runs: [] },
    ];
    const key = (s: { value: unknown; context: FlowContext }) => {
      const { flow: state } = s.context;
      const settledRuns: string[] = [];
      for (let r = state.settled; r !== undefined; r = r.previous) {
        settledRuns.push(`${r.nodeId}=${String(r.outcome)}${r.unhandled ? '!' : ''}`);
      }
      const waits = state.waiting.map((p) => p.step);
      return JSON.stringify([s.value, state.scheduled, settledRuns, waits, state.rounds.key()]);
    };
    const proof = prove(machine, events, { effects: NO_FLOW_EFFECTS }, key as never);
    expect(proof.stuck).toEqual([]);
    // `between` only passes: its eventless transitions leave it within the same step.
    expect([...proof.reached].sort()).toEqual(
      stateNames(machine)
        .filter((s) => s !== '"between"')
        .sort(),
    );
  });
});
