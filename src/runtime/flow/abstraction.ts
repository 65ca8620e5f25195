import { type AdjacencyMap, getAdjacencyMap } from '@xstate/graph';
import { assign, createActor, setup } from 'xstate';
import { AnalysisLimitError } from '../../errors.js';
import type { StepShape } from './definition.js';
import { emissionOf, handledSteps, outcomesOf } from './outcomes.js';
import { FlowRounds } from './rounds.js';

/**
 * One round of the abstraction: the outcome each step of the round that chooses one settles with — a
 * router's label, a wait's name or timeout label, `failed` for a step whose failure is handled.
 */
export interface RoundEvent {
  type: 'ROUND';
  labels: Record<string, string>;
}

/** The abstract state of a flow run between rounds. */
export interface AbstractContext {
  rounds: FlowRounds;
  /** The steps of the next round, in definition order. */
  round: string[];
  /** The step whose firing would pass its maxRuns, if the last round led to one. */
  exceeded: string | undefined;
}

/** What the abstraction is built from. */
export interface AbstractFlow {
  name: string;
  steps: readonly StepShape[];
}

/**
 * The abstraction of a flow that analysis walks: one transition per round, whose only choice is the
 * label each router of the round returns. Its state is what the runtime's round semantics keep
 * (`FlowRounds`), so the runtime and the analysis cannot drift apart.
 */
export function createAbstractionMachine(flow: AbstractFlow) {
  const byName = new Map(flow.steps.map((s) => [s.name, s]));
  return setup({
    types: { context: {} as AbstractContext, events: {} as RoundEvent },
    guards: {
      exceeded: ({ context }) => context.exceeded !== undefined,
      idle: ({ context }) => context.round.length === 0,
    },
  }).createMachine({
    id: `${flow.name}:abstraction`,
    context: () => {
      const rounds = new FlowRounds(flow.steps);
      return { rounds, round: rounds.first().map((s) => s.step), exceeded: undefined };
    },
    initial: 'running',
    states: {
      running: {
        always: [
          { guard: 'exceeded', target: 'failed' },
          { guard: 'idle', target: 'done' },
        ],
        on: {
          ROUND: {
            actions: assign(({ context, event }) => {
              const rounds = context.rounds.clone();
              const emitted: string[] = [];
              for (const name of context.round) {
                const step = byName.get(name) as StepShape;
                emitted.push(...emissionOf(step, event.labels[name]).emitted);
              }
              const outcome = rounds.next(emitted);
              return outcome.kind === 'next'
                ? { rounds, round: outcome.steps.map((s) => s.step), exceeded: undefined }
                : { rounds, round: [], exceeded: outcome.step };
            }),
          },
        },
      },
      done: { type: 'final' },
      failed: { type: 'final' },
    },
  });
}

/** The machine's snapshot type. */
export type AbstractSnapshot = ReturnType<ReturnType<typeof createAbstractionMachine>['getInitialSnapshot']>;

/** Every combination of outcomes the steps of the next round that choose can settle with. */
function roundChoices(
  byName: ReadonlyMap<string, StepShape>,
  handled: ReadonlySet<string>,
  round: readonly string[],
): RoundEvent[] {
  let combos: Record<string, string>[] = [{}];
  for (const name of round) {
    const routes = outcomesOf(byName.get(name) as StepShape, handled);
    if (routes === undefined) continue;
    combos = combos.flatMap((combo) => routes.map((label) => ({ ...combo, [name]: label })));
  }
  return combos.map((labels) => ({ type: 'ROUND', labels }));
}

/**
 * The key of an abstract state: its status, next round and round-semantics state. Memoised per
 * snapshot, since the graph asks for the key of each state both when it is reached and for each edge.
 */
function abstractKeys(): (snapshot: AbstractSnapshot) => string {
  const keys = new WeakMap<AbstractSnapshot, string>();
  return (snapshot) => {
    let key = keys.get(snapshot);
    if (key === undefined) {
      const { round, rounds } = snapshot.context;
      key = `${String(snapshot.value)}|${round.join(',')}|${rounds.key()}`;
      keys.set(snapshot, key);
    }
    return key;
  };
}

/** A state of the abstraction's graph, with its outgoing transitions (`to` is the target's key). */
export interface AbstractNode {
  snapshot: AbstractSnapshot;
  edges: { event: RoundEvent; to: string }[];
}

/** A state graph of the abstraction: each state once, by key, with its outgoing transitions. */
export interface AbstractGraph {
  initial: string;
  nodes: Map<string, AbstractNode>;
}

/** Builds the abstraction's state graph with `@xstate/graph`, at most `stateLimit` states. */
export function buildAbstractGraph(flow: AbstractFlow, stateLimit: number): AbstractGraph {
  const machine = createAbstractionMachine(flow);
  const byName = new Map(flow.steps.map((s) => [s.name, s]));
  const abstractKey = abstractKeys();
  const handled = handledSteps(flow.steps);
  let map: AdjacencyMap<AbstractSnapshot, RoundEvent>;
  try {
    map = getAdjacencyMap<AbstractSnapshot, RoundEvent, undefined>(machine as never, {
      events: (snapshot) =>
        snapshot.status === 'done' ? [] : roundChoices(byName, handled, snapshot.context.round),
      serializeState: (snapshot) => abstractKey(snapshot),
      limit: stateLimit,
    });
  } catch (error) {
    if (error instanceof Error && error.message === 'Traversal limit exceeded') {
      throw new AnalysisLimitError(flow.name, stateLimit);
    }
    throw error;
  }
  const nodes: AbstractGraph['nodes'] = new Map();
  for (const [key, value] of Object.entries(map)) {
    const edges = Object.values(value.transitions) as { event: RoundEvent; state: AbstractSnapshot }[];
    nodes.set(key, {
      snapshot: value.state,
      edges: edges.map(({ event, state }) => ({ event, to: abstractKey(state) })),
    });
  }
  const initial = abstractKey(createActor(machine).getSnapshot());
  return { initial, nodes };
}
