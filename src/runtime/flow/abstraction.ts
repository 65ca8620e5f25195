import { type AdjacencyMap, getAdjacencyMap } from '@xstate/graph';
import { getInitialSnapshot, getNextSnapshot } from 'xstate';
import { AnalysisLimitError } from '../../errors.js';
import {
  createFlowMachine,
  type FlowMachine,
  NO_FLOW_EFFECTS,
  type RoundEvent,
} from '../../machines/flow/flow-machine.js';
import { FAILED_OUTCOME, handledSteps, outcomesOf } from '../../machines/flow/outcomes.js';
import type { StepShape } from '../../machines/flow/step-shape.js';

export type { RoundEvent } from '../../machines/flow/flow-machine.js';

/** What analysis is built from. */
export interface AbstractFlow {
  name: string;
  steps: readonly StepShape[];
}

/**
 * The outcomes of each step that chooses one, as analysis explores them: `outcomesOf`, and — for a
 * step in `failing` (a flow step whose child flow can end failed) — `failed` too, which fails the run
 * when nothing handles it.
 */
export function abstractOutcomes(
  steps: readonly StepShape[],
  failing: ReadonlySet<string> = new Set(),
): Map<string, readonly string[]> {
  const handled = handledSteps(steps);
  const outcomes = new Map<string, readonly string[]>();
  for (const step of steps) {
    const choices = outcomesOf(step, handled);
    if (!failing.has(step.name)) {
      if (choices !== undefined) outcomes.set(step.name, choices);
      continue;
    }
    const own = choices ?? [step.name];
    outcomes.set(step.name, own.includes(FAILED_OUTCOME) ? own : [...own, FAILED_OUTCOME]);
  }
  return outcomes;
}

/** A snapshot of the flow machine, as analysis walks it. */
export type AbstractSnapshot = ReturnType<FlowMachine['getInitialSnapshot']>;

/** The one event of a round in which no step chooses an outcome (most rounds). */
const PLAIN_ROUND: readonly RoundEvent[] = [{ type: 'ROUND', labels: {} }];

/** Every combination of outcomes the steps of the next round that choose one can settle with. */
function roundChoices(
  outcomes: ReadonlyMap<string, readonly string[]>,
  snapshot: AbstractSnapshot,
): readonly RoundEvent[] {
  let combos: Record<string, string>[] | undefined;
  for (const { step: name } of snapshot.context.flow.scheduled) {
    const routes = outcomes.get(name);
    if (routes === undefined) continue;
    combos = (combos ?? [{}]).flatMap((combo) => routes.map((label) => ({ ...combo, [name]: label })));
  }
  return combos === undefined ? PLAIN_ROUND : combos.map((labels) => ({ type: 'ROUND', labels }));
}

/** The steps of the round a snapshot waits in (between rounds: the next round's). */
export function roundOf(snapshot: AbstractSnapshot): string[] {
  return snapshot.context.flow.scheduled.map((s) => s.step);
}

/**
 * The key of a state: its status, next round and round-semantics state. Memoised per snapshot,
 * since the graph asks for the key of each state both when it is reached and for each edge.
 */
function abstractKeys(): (snapshot: AbstractSnapshot) => string {
  const keys = new WeakMap<AbstractSnapshot, string>();
  return (snapshot) => {
    let key = keys.get(snapshot);
    if (key === undefined) {
      const { flow } = snapshot.context;
      let round = '';
      for (const scheduled of flow.scheduled) round += `${scheduled.step},`;
      key = `${String(snapshot.value)}|${round}|${flow.rounds.key()}`;
      keys.set(snapshot, key);
    }
    return key;
  };
}

/** A state of the flow's graph, with its outgoing transitions (`to` is the target's key). */
export interface AbstractNode {
  snapshot: AbstractSnapshot;
  edges: { event: RoundEvent; to: string }[];
}

/** The flow's state graph: each state once, by key, with its outgoing transitions. */
export interface AbstractGraph {
  initial: string;
  nodes: Map<string, AbstractNode>;
}

/** Whether a snapshot is an end: the machine reached a final state. */
const isEnd = (snapshot: AbstractSnapshot): boolean => snapshot.status === 'done';

/**
 * Builds the flow's state graph with `@xstate/graph` on the flow's own machine (the one its runs
 * run), from its first round on: each transition is a `ROUND` that settles a round at once with the
 * outcome each step that chooses one settles with (a route label, a wait's name or timeout label,
 * `failed` for a handled failure, or for a step in `failing`). At most `stateLimit` states
 * (`analysis_limit` past it).
 */
export function buildAbstractGraph(
  flow: AbstractFlow,
  stateLimit: number,
  failing: ReadonlySet<string> = new Set(),
): AbstractGraph {
  const machine = createFlowMachine(flow);
  const abstractKey = abstractKeys();
  const outcomes = abstractOutcomes(flow.steps, failing);
  const started = getNextSnapshot(machine, getInitialSnapshot(machine, { effects: NO_FLOW_EFFECTS }), {
    type: 'START',
  });
  let map: AdjacencyMap<AbstractSnapshot, RoundEvent>;
  try {
    map = getAdjacencyMap<AbstractSnapshot, RoundEvent, undefined>(machine as never, {
      fromState: started,
      events: (snapshot) => (isEnd(snapshot) ? [] : roundChoices(outcomes, snapshot)),
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
  return { initial: abstractKey(started), nodes };
}
