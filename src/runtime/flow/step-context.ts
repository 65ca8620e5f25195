import type { AnyActorRef } from 'xstate';
import type { Store } from '../../stores/store.js';
import type { MemoryEntry } from '../../types.js';
import type { Clock } from '../engine/clock.js';
import type { ChildRunScope } from '../run/child-run.js';
import { nodeRunKey } from '../run/idempotency-key.js';
import type { RunCommits } from '../run/run-commits.js';
import type { RunEvents } from '../run/run-events.js';
import type { FlowCrewWaits } from './crew-steps.js';
import type { StepContext } from './definition.js';
import type { WithId } from './state.js';
import type { StepRunSpec } from './step-runner.js';

/** What a step run's context reads of its flow run. */
export interface StepContextRun<S> {
  state: WithId<S>;
  inputs: Record<string, unknown>;
  hub: RunEvents;
  clock: Clock;
  /** Every task run the crews of this run's steps completed, in order. */
  results: MemoryEntry[];
  /** A read-only view of every completed step's latest output. */
  outputs: Readonly<Record<string, unknown>>;
  /** Where crews that could pause are kept, and the steps whose crews wait (a flow run's). */
  crews?: { store: Store | undefined; waits: FlowCrewWaits } | undefined;
  /** The flow's name. */
  flow?: string | undefined;
  /** The run's commit path (a run with a store): what a composing step stages its records on. */
  commits?: RunCommits | undefined;
  /** The routes the run forces (`routes`): a flow step gives its child the ones under its name. */
  forced?: ReadonlyMap<string, string | readonly string[]> | undefined;
}

/**
 * What a composing step's body (a map step, a flow step) reads of its step run besides its context:
 * the run and node it is, the node's actor (its children's parent), where the run is kept and how it
 * publishes.
 */
export interface StepScope {
  flow: string;
  /** The parent run's id and this step run's node id: a child's id starts with `<runId>/<nodeId>`. */
  runId: string;
  nodeId: string;
  step: string;
  /** The step run's actor: children join its actor system. */
  self: AnyActorRef;
  signal: AbortSignal;
  clock: Clock;
  /** The run's event door: `emit` a run event, `relay` a child's (tagged with the step). */
  hub: RunEvents;
  /** The run's store (undefined: a run without one). */
  store: Store | undefined;
  /** The run's commit path (undefined: a run without a store). */
  commits: RunCommits | undefined;
  /** The crew waits of the run (what a resumed run found, and its answers), its child flows' too. */
  crewWaits: FlowCrewWaits | undefined;
  /** The routes the run forces, by step name or path (`review › approve`). */
  forced?: ReadonlyMap<string, string | readonly string[]> | undefined;
}

const scopes = new WeakMap<object, StepScope>();

/** The scope of the step run whose body got `context`: only contexts made by a run have one. */
export function stepScopeOf(context: object): StepScope | undefined {
  return scopes.get(context);
}

/** The context a step run's body gets; `kickoff` runs a crew as the step's child, its events relayed. */
export function stepContext<S>(
  spec: StepRunSpec<S>,
  signal: AbortSignal,
  self: AnyActorRef,
  run: StepContextRun<S>,
): StepContext<WithId<S>> {
  // Counts this attempt's kickoffs: the same body asks for the same crew runs again.
  let kickoffs = 0;
  const context: StepContext<WithId<S>> = {
    state: run.state,
    payload: spec.payload,
    inputs: run.inputs,
    outputs: run.outputs,
    flowId: run.state.id,
    signal,
    idempotencyKey: nodeRunKey(run.hub.runId, spec.nodeId),
    kickoff(crew, crewOptions = {}) {
      kickoffs += 1;
      const scope: ChildRunScope = {
        parent: self,
        signal,
        clock: run.clock,
        inputs: crewOptions.inputs,
        executionId: crewOptions.executionId,
        relay: (event) => run.hub.relay(event, spec.step.name),
        completed: (entry) => run.results.push(entry),
      };
      const { crews } = run;
      if (crews !== undefined) {
        const { nodeId } = spec;
        scope.durable = {
          store: crews.store,
          executionId: `${run.state.id}:${nodeId}:${kickoffs}`,
          answersFor: (executionId) => crews.waits.answerFor(nodeId, executionId),
          waitedFor: (executionId) => crews.waits.waitedFor(nodeId, executionId),
        };
      }
      return crew.runAsChild(scope);
    },
    results: () => [...run.results],
  };
  scopes.set(context, {
    flow: run.flow ?? '',
    runId: run.state.id,
    nodeId: spec.nodeId,
    step: spec.step.name,
    self,
    signal,
    clock: run.clock,
    hub: run.hub,
    store: run.crews?.store,
    commits: run.commits,
    crewWaits: run.crews?.waits,
    forced: run.forced,
  });
  return context;
}
