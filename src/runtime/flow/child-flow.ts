import type { AnyActorRef } from 'xstate';
import { createFlowMachine, type FlowMachine } from '../../machines/flow/flow-machine.js';
import { PATH_SEPARATOR } from '../../machines/flow/waits.js';
import type { RunHead, Store } from '../../stores/store.js';
import type { StatecrewEvent } from '../../types.js';
import { RunOwner } from '../durable/run-owner.js';
import { toClock } from '../engine/clock.js';
import { FlowChildWaits } from './child-waits.js';
import type { FlowDefinition } from './definition.js';
import { leaseMsOf } from './flow-kickoff.js';
import type { FlowOutput, FlowRun } from './flow-output.js';
import { claimFlowRun } from './flow-resume.js';
import { type ChildPlacement, startFlowRun } from './flow-run.js';
import type { FlowRunOptions } from './flow-run-options.js';
import type { FlowRunSeed } from './flow-run-parts.js';
import { loadSnapshot } from './flow-store.js';
import type { ForcedRoutes } from './forced-routes.js';
import type { ChildRequest } from './snapshot.js';
import type { StepScope } from './step-context.js';

/**
 * A flow that runs as the child of another run's step (a `Flow`: a flow step's child, a map step's
 * item): what the parent reads of it.
 */
export interface ComposableFlow {
  readonly name: string;
  readonly definition: FlowDefinition<unknown>;
}

/** One child flow run a parent step asks for: which run, with which inputs. */
export interface ChildFlowRequest {
  /** The parent step run. */
  scope: StepScope;
  /** The child run's id (`<parent id>/<node id>`, a map item's `<parent id>/<node id>/<itemId>`). */
  runId: string;
  /** The child's inputs when it starts (a child run that exists goes on with its own). */
  inputs: Record<string, unknown> | undefined;
  /** Which of the child's events reach the parent's (a map's items pass on only a few). @default all */
  relays?: ((event: StatecrewEvent) => boolean) | undefined;
}

/** What every run (new or resumed) of one child gets from its parent step run. */
type ChildRunOptions = FlowRunOptions & ChildPlacement;

/**
 * Runs `child` as the child of the step run `request.scope` under id `request.runId`. It is kept in
 * the parent's store (the child definition's own store only when the parent has none), runs on the
 * parent's clock and signal, its supervisor under the step run's actor, its events relayed into the
 * parent's (tagged with the step), its head naming its parent (`data.parent: { runId, nodeId, step }`),
 * and it takes the routes the parent forces under the step's name (`'<step> › <child step>'`).
 * A run that exists goes on: a completed one gives its stored result and runs nothing; a failed,
 * aborted or orphaned one is resumed (its finished steps do not run again); a paused one goes on with
 * the answer the parent was resumed with for it, or — without one — rejects with `FlowChildWaits`
 * again. Resolves with its output (also a failed one's); rejects with `FlowChildWaits` when it paused.
 */
export async function runChildFlow(
  child: ComposableFlow,
  request: ChildFlowRequest,
): Promise<FlowOutput<unknown>> {
  const { scope, runId, inputs } = request;
  const definition = child.definition;
  const store = scope.store ?? definition.store;
  const options: ChildRunOptions = {
    clock: scope.clock,
    signal: scope.signal,
    store,
    parent: scope.self as AnyActorRef,
    link: { runId: scope.runId, nodeId: scope.nodeId, step: scope.step },
    routes: childRoutes(scope.forced, scope.step),
  };
  const head = store === undefined ? undefined : await store.readRun(runId);
  const out =
    head === undefined || store === undefined
      ? await relayed(
          request,
          startFlowRun(definition, { ...options, inputs: { ...inputs, id: runId } }, supervisorOf(child)),
        )
      : await goOn(child, { request, store, head, options });
  if (out.status === 'paused') {
    const pending = out.waiting ?? (out.pending === undefined ? [] : [out.pending]);
    throw new FlowChildWaits(definition.name, runId, pending);
  }
  return out;
}

/** What going on with a stored child run needs. */
interface StoredChild {
  request: ChildFlowRequest;
  store: Store;
  head: RunHead;
  options: ChildRunOptions;
}

/** Goes on with the stored child run: its result when completed, else claimed and run on, here. */
async function goOn(child: ComposableFlow, stored: StoredChild): Promise<FlowOutput<unknown>> {
  const { request: childRequest, store, head, options } = stored;
  const { scope, runId } = childRequest;
  const definition = child.definition;
  const given = scope.crewWaits?.childRequest(scope.nodeId, runId);
  if (head.status === 'paused' && given === undefined) {
    const waited = scope.crewWaits?.childWaitedFor(scope.nodeId, runId);
    const pending = waited ?? (await loadSnapshot(store, runId))?.pending ?? [];
    throw new FlowChildWaits(definition.name, runId, pending);
  }
  // A child answered meanwhile (by its own resume) goes on, or gives its result, without the answer.
  const request: ChildRequest =
    head.status === 'paused' && given !== undefined ? given : { kind: 'answer', answer: undefined };
  const clock = toClock(scope.clock);
  const owner = new RunOwner(store, runId, leaseMsOf(definition, {}), clock, false);
  const claim = await claimFlowRun(definition, owner, clock, request);
  if (claim.kind === 'completed') return claim.output;
  const { snapshot, inputs, answers, lineage } = claim;
  const seed: FlowRunSeed = { owner, resume: snapshot, answers, lineage };
  let run: FlowRun<unknown>;
  try {
    run = startFlowRun(definition, { ...options, inputs }, supervisorOf(child), seed);
  } catch (error) {
    await owner.releaseQuietly(snapshot?.status);
    throw error;
  }
  return relayed(childRequest, run);
}

/** The run's result, its events relayed into the parent's as they come (tagged with the step). */
function relayed(request: ChildFlowRequest, run: FlowRun<unknown>): Promise<FlowOutput<unknown>> {
  const { scope, relays } = request;
  run.events$.subscribe((event) => {
    if (relays === undefined || relays(event)) scope.hub.relay(event, scope.step);
  });
  return run.result;
}

/** The routes forced under `step`'s name (`'<step> › <child step>'`), their prefix stripped; undefined when none. */
export function childRoutes(
  forced: ReadonlyMap<string, string | readonly string[]> | undefined,
  step: string,
): ForcedRoutes | undefined {
  if (forced === undefined) return undefined;
  const prefix = `${step}${PATH_SEPARATOR}`;
  const routes: Record<string, string | readonly string[]> = {};
  for (const [key, value] of forced) if (key.startsWith(prefix)) routes[key.slice(prefix.length)] = value;
  return Object.keys(routes).length === 0 ? undefined : routes;
}

/** One supervisor per child definition, made again when steps were added to it since. */
const supervisors = new WeakMap<ComposableFlow, { steps: number; machine: FlowMachine }>();

function supervisorOf(child: ComposableFlow): FlowMachine {
  const definition = child.definition;
  const kept = supervisors.get(child);
  if (kept !== undefined && kept.steps === definition.steps.length) return kept.machine;
  const machine = createFlowMachine(definition);
  supervisors.set(child, { steps: definition.steps.length, machine });
  return machine;
}
