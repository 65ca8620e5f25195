import type { Observable } from 'rxjs';
import { type ActorOptions, type AnyActorLogic, type AnyActorRef, createActor } from 'xstate';
import { StoreRequiredError } from '../../errors.js';
import type { FlowMachineOutput } from '../../machines/flow.js';
import type { Store } from '../../stores/store.js';
import type { Failure, MemoryEntry, StatecrewEvent } from '../../types.js';
import { checkInputs } from '../crew/inputs.js';
import { memoryEntry } from '../crew/memory.js';
import { SUMMARY_NODE } from '../crew/summary.js';
import { checkRunId } from '../durable/claim.js';
import { DEFAULT_LEASE_MS, RunOwner } from '../durable/run-owner.js';
import { type Clock, type ClockOption, toClock } from '../engine/clock.js';
import { EventHub } from '../engine/event-hub.js';
import { runToEnd } from '../engine/run-to-end.js';
import { optionalInteger } from '../engine/validate.js';
import type { FlowDefinition, StepContext } from './definition.js';
import { FlowKeeper } from './flow-keeper.js';
import type { StoredFlowSnapshot } from './flow-store.js';
import { checkForcedRoutes, type ForcedRoutes } from './forced-routes.js';
import { FlowRecorder } from './recorder.js';
import { createRoundDriver } from './round-driver.js';
import type { HumanAnswer, PendingHuman } from './snapshot.js';
import { checkState, createState, type WithId } from './state.js';
import { createStepRunner, type StepRunSpec } from './step-runner.js';
import { createFlowSupervisor, type FlowSupervisor, flowRuns } from './supervisor.js';
import { validateTriggers } from './validate.js';

/** Options of one flow run. */
export interface FlowRunOptions {
  /** Merged into the state before the start steps (a plain object); `inputs.id` sets the state id. @default {} */
  inputs?: Record<string, unknown> | undefined;
  /**
   * Aborting it stops the steps in flight (and their crews) and rejects the run with
   * `RunAbortedError` (`aborted`): `cause` is the signal's reason, `partial` the flow output so far.
   */
  signal?: AbortSignal | undefined;
  /** An XState inspection observer: it sees the flow, every step run and every crew inside one. */
  inspect?: ActorOptions<AnyActorLogic>['inspect'] | undefined;
  /** The clock for timestamps, durations and backoffs (a `Clock`, or its `now`). @default the system clock */
  clock?: ClockOption | undefined;
  /**
   * Forces routers along a path without calling them: a label forces every run of that router, a list
   * its successive runs. A missing label, or one outside the routes, fails the step (`unknown_route`);
   * a key naming no router rejects the kickoff (`unknown_router`).
   */
  routes?: ForcedRoutes | undefined;
  /**
   * Where the run is kept: its snapshot is written when it starts (claiming its id: `flow_exists` if
   * a run holds it) and after every step, and the next round starts only once it is written.
   * @default the flow's `store`
   */
  store?: Store | undefined;
  /**
   * Forks a stored run (`kickoff` only): a new run, with a new id, starting from that run's stored
   * state with `inputs` merged over it; the source run is unchanged.
   */
  from?: string | undefined;
  /**
   * How long the run's lease in its store lasts without renewal, in ms: it is renewed every third of
   * that while the run runs; a run whose process died can be taken over after it.
   * @default the flow's `leaseMs`, else 15000
   */
  leaseMs?: number | undefined;
}

/** Where a run starts from besides the definition: a stored run it goes on with. */
export interface FlowRunSeed {
  /**
   * The snapshot of the run to go on with (same id): its state, rounds and outputs; absent for a run
   * whose process died before its first header, which starts again from its stored inputs.
   */
  resume: StoredFlowSnapshot | undefined;
  /** The answer to one of its waiting human steps (a paused run). */
  answer?: HumanAnswer | undefined;
  /** The owner that claimed the stored run. */
  owner: RunOwner;
}

/** The result of a flow run. */
export interface FlowOutput<S> {
  /** The state id. */
  id: string;
  state: WithId<S>;
  /** The return value of the last step in `trail`. */
  output: unknown;
  /** Completed step runs, round by round, in definition order within a round. */
  trail: string[];
  /** Every completed step's latest output, by step name. */
  outputs: Record<string, unknown>;
  /** Every name emitted (step names and route labels), in order. */
  emitted: string[];
  /** `failed` also for the partial output of an aborted run. */
  status: 'completed' | 'failed' | 'paused';
  /** Step name → error message. */
  errors: Record<string, string>;
  /** Step name → the failure with its code: the contract that survives JSON. */
  failures: Record<string, Failure>;
  totalTimeMs: number;
  /** A paused run: the human step it waits for (the first, when several wait). */
  pending?: PendingHuman;
  /** A paused run with several human steps waiting: all of them. */
  waiting?: PendingHuman[];
}

/** A flow run in progress. */
export interface FlowRun<S> {
  /** The state id. */
  id: string;
  /** Every event of the run, crews' included (tagged with their step); completes when the run ends. */
  events$: Observable<StatecrewEvent>;
  /** The flow supervisor actor (it starts on the next microtask). */
  actor: AnyActorRef;
  /** Resolves with the flow output; rejects on abort. Nobody has to await it (see `run.failed`). */
  result: Promise<FlowOutput<S>>;
}

/** The context a step run's body gets; `kickoff` runs a crew as the step's child, its events relayed. */
function stepContext<S>(
  spec: StepRunSpec<S>,
  signal: AbortSignal,
  self: AnyActorRef,
  run: {
    state: WithId<S>;
    inputs: Record<string, unknown>;
    hub: EventHub;
    clock: Clock;
    /** Every task run the crews of this run's steps completed, in order. */
    results: MemoryEntry[];
  },
  outputs: Readonly<Record<string, unknown>>,
): StepContext<WithId<S>> {
  return {
    state: run.state,
    payload: spec.payload,
    inputs: run.inputs,
    outputs,
    flowId: run.state.id,
    signal,
    kickoff(crew, crewOptions = {}) {
      const crewRun = crew.run({ ...crewOptions, signal, parent: self, clock: run.clock });
      crewRun.events$.subscribe((event) => {
        if (event.type === 'node.completed' && event.nodeId !== SUMMARY_NODE) {
          run.results.push(memoryEntry(event.nodeId, event.output));
        }
        run.hub.relay(event, spec.step.name);
      });
      return crewRun.result;
    },
    results: () => [...run.results],
  };
}

/**
 * Starts one run of a flow. Definition errors (`unknown_trigger`, `no_start`), inputs that are not a
 * plain object or do not fit the state (`invalid_inputs`) and unknown forced routers throw here,
 * before any step runs.
 */
export function startFlowRun<S>(
  definition: FlowDefinition<S>,
  options: FlowRunOptions,
  supervisor: FlowSupervisor = createFlowSupervisor(definition),
  seed?: FlowRunSeed,
): FlowRun<S> {
  validateTriggers(definition);
  const forced = checkForcedRoutes(definition, options.routes);
  const resumed = seed?.resume;
  const where = `Flow "${definition.name}" kickoff`;
  const inputs =
    resumed === undefined ? checkInputs(where, options.inputs) : (resumed.inputs as Record<string, unknown>);
  if (resumed === undefined && inputs.id !== undefined) checkRunId(where, 'inputs.id', inputs.id);
  const state =
    resumed === undefined
      ? (createState(definition.name, definition.state, inputs) as WithId<S>)
      : (resumed.state as WithId<S>);
  const { id } = state;
  const clock = toClock(options.clock);
  const results: MemoryEntry[] = [];
  const recorder = new FlowRecorder();
  if (resumed !== undefined) recorder.restore(resumed);
  const store = options.store ?? definition.store;
  const unanswerable = definition.steps.filter((s) => s.kind === 'human' && !forced.has(s.name));
  if (store === undefined && unanswerable.length > 0) {
    throw new StoreRequiredError(
      `Flow "${definition.name}" (human step "${(unanswerable[0] as { name: string }).name}")`,
      'pause for a human and resume',
    );
  }
  const hub = new EventHub(id, clock.now, (event) => recorder.apply(event));
  const outputs = recorder.outputsView();
  let halt = (_error: unknown): void => {};
  const halted = new Promise<never>((_, reject) => {
    halt = reject;
  });
  let waiting = (): PendingHuman[] => [];
  const keeper =
    store === undefined
      ? undefined
      : new FlowKeeper(seed?.owner ?? new RunOwner(store, id, leaseMsOf(definition, options), clock), {
          flow: definition.name,
          id,
          clock,
          recorder,
          state,
          inputs,
          waiting: () => waiting(),
          halt: (error) => halt(error),
          stored: resumed,
        });
  const runner = createStepRunner<S>({
    hub,
    clock,
    forced,
    contextFor: (spec, signal, self) =>
      stepContext(spec, signal, self, { state, inputs, hub, clock, results }, outputs),
    checkState: (spec, output) => {
      checkState(definition.state, state, spec.step.name);
      keeper?.encodeStep(spec.nodeId, spec.step.name, output);
    },
  });
  /** Whether this run holds its id in the store (its claim, or a resume's first header, landed). */
  let claimed = false;
  const driver = createRoundDriver({
    steps: definition.steps,
    hub,
    recorder,
    runner,
    resume: resumed,
    answer: seed?.answer,
    forced,
    promptOf: (step, payload) => {
      const { prompt } = step;
      if (typeof prompt === 'string') return prompt;
      if (prompt === undefined) return step.name;
      return prompt({ state, payload, inputs, outputs, flowId: id });
    },
    // Each step stages what is new — its run and the header — never the whole run again.
    onStepSettled: keeper && ((completed) => keeper.stepSettled(completed)),
    onRoundCompleted: keeper && ((n, round) => keeper.roundCompleted(n, round)),
  });
  waiting = () => driver.waiting();
  const run = flowRuns.register(driver);

  const actor = createActor(supervisor, {
    input: { run },
    id: `flow:${id}`,
    ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
  });
  // What a transition staged is committed before the runner starts anything it asked for.
  actor.subscribe({
    next: () => {
      keeper?.afterTransition((commit) => runner.hold(commit));
      runner.flush();
    },
    error: () => {},
  });
  const startedAt = clock.now();
  const output = (status: FlowOutput<S>['status']): FlowOutput<S> => {
    const out: FlowOutput<S> = {
      id,
      state,
      output: recorder.lastOutput,
      trail: [...recorder.trail],
      outputs: Object.fromEntries(recorder.outputs),
      emitted: [...recorder.emitted],
      status,
      errors: { ...recorder.errors },
      failures: { ...recorder.failures },
      totalTimeMs: clock.now() - startedAt,
    };
    const waiting = driver.waiting();
    if (status === 'paused' && waiting[0] !== undefined) {
      out.pending = waiting[0];
      if (waiting.length > 1) out.waiting = waiting;
    }
    return out;
  };

  const result = runToEnd<FlowOutput<S>>({
    supervisor: actor,
    hub,
    runner,
    signal: options.signal,
    nodes: definition.steps.length,
    process: 'flow',
    startEvent: { type: 'START' },
    halted,
    complete(machineOutput) {
      const { error } = machineOutput as FlowMachineOutput;
      if (error !== undefined) throw error;
      const status =
        actor.getSnapshot().value === 'failed'
          ? 'failed'
          : driver.waiting().length > 0
            ? 'paused'
            : 'completed';
      const out = output(status);
      return { result: out, status, totalTimeMs: out.totalTimeMs };
    },
    partial: () => output('failed'),
    // Stored as aborted, to be resumed like a run whose process died; the rejection waits for the
    // write. Only once the run holds its id: an abort before the claim landed must not touch another run.
    keepAborted: async () => {
      if (keeper !== undefined && claimed) await keeper.finish('aborted').catch(() => {});
    },
    release: () => {
      flowRuns.delete(run);
      keeper?.end();
    },
    ...(keeper === undefined
      ? {}
      : {
          ready: (async () => {
            if (seed === undefined) await keeper.claimNew();
            else await keeper.start();
            claimed = true;
          })(),
          finish: (out: FlowOutput<S>) => keeper.finish(out.status),
        }),
  });

  return { id, events$: hub.events$, actor, result };
}

/** The lease of a run: the option's, else the flow's, else the default (`invalid_option` unless an integer ≥ 10). */
export function leaseMsOf(
  definition: { name: string; leaseMs?: number | undefined },
  options: { leaseMs?: number | undefined },
): number {
  const leaseMs = options.leaseMs ?? definition.leaseMs ?? DEFAULT_LEASE_MS;
  optionalInteger(`Flow "${definition.name}" kickoff`, 'leaseMs', leaseMs, 10);
  return leaseMs;
}
