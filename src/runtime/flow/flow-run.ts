import type { Observable } from 'rxjs';
import { type ActorOptions, type AnyActorLogic, type AnyActorRef, createActor } from 'xstate';
import { runFlowStep } from '../../actors/flow-step.js';
import { MaxRunsError } from '../../errors.js';
import type { FlowMachineOutput } from '../../machines/flow.js';
import type { StatecrewEvent } from '../../types.js';
import { EventHub } from '../event-hub.js';
import { LifecycleRunner, type NodeRunSpec } from '../lifecycle-runner.js';
import { runToEnd } from '../run-to-end.js';
import type { FlowDefinition, StepContext, StepDefinition } from './definition.js';
import { checkForcedRoutes, type ForcedRoutes, forcedRouter } from './forced-routes.js';
import { FlowRecorder } from './recorder.js';
import { FlowRounds, type ScheduledStep } from './rounds.js';
import { checkState, createState, type WithId } from './state.js';
import { createFlowSupervisor, type FlowSupervisor, flowRuns } from './supervisor.js';
import { validateTriggers } from './validate.js';

/** Options of one flow run. */
export interface FlowRunOptions {
  /** Merged into the state before the start steps; `inputs.id` sets the state id. @default {} */
  inputs?: Record<string, unknown> | undefined;
  /** Aborting it stops the steps in flight (and their crews) and rejects the run with its reason. */
  signal?: AbortSignal | undefined;
  /** An XState inspection observer: it sees the flow, every step run and every crew inside one. */
  inspect?: ActorOptions<AnyActorLogic>['inspect'] | undefined;
  /** The clock for timestamps and durations, in epoch milliseconds. @default Date.now */
  clock?: (() => number) | undefined;
  /**
   * Forces routers along a path without calling them: a label forces every run of that router, a list
   * its successive runs. A missing label, or one outside the routes, fails the step (`unknown_route`);
   * a key naming no router rejects the kickoff (`unknown_router`).
   */
  routes?: ForcedRoutes | undefined;
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
  status: 'completed' | 'failed' | 'paused';
  /** Step name → error message. */
  errors: Record<string, string>;
  totalTimeMs: number;
}

/** A flow run in progress. */
export interface FlowRun<S> {
  /** The state id. */
  id: string;
  /** Every event of the run, crews' included (tagged with their step); completes when the run ends. */
  events$: Observable<StatecrewEvent>;
  /** The flow supervisor actor (it starts on the next microtask). */
  actor: AnyActorRef;
  result: Promise<FlowOutput<S>>;
}

interface StepRunSpec<S> extends NodeRunSpec {
  step: StepDefinition<S>;
  run: number;
  payload: unknown;
}

const runNodeId = (scheduled: ScheduledStep) =>
  scheduled.run === 1 ? scheduled.step : `${scheduled.step}#${scheduled.run}`;

/**
 * Starts one run of a flow. Definition errors (`unknown_trigger`, `no_start`) and inputs that do not fit
 * the state (`invalid_inputs`) throw here, before any step runs.
 */
export function startFlowRun<S>(
  definition: FlowDefinition<S>,
  options: FlowRunOptions,
  supervisor: FlowSupervisor = createFlowSupervisor(definition),
): FlowRun<S> {
  const { signal } = options;
  signal?.throwIfAborted();
  validateTriggers(definition);
  const forced = checkForcedRoutes(definition, options.routes);
  const inputs = options.inputs ?? {};
  const state = createState(definition.name, definition.state, inputs);
  const id = state.id;
  const now = options.clock ?? Date.now;
  const recorder = new FlowRecorder();
  const hub = new EventHub(id, now, (event) => recorder.apply(event));
  const byName = new Map(definition.steps.map((s) => [s.name, s]));
  const rounds = new FlowRounds(definition.steps);
  const outputsView = recorder.outputsView();

  let upcoming: ScheduledStep[] = [];
  let inRound: { step: StepDefinition<S>; nodeId: string }[] = [];
  const completedInRound = new Set<string>();
  let pending = 0;
  let failed = false;

  const contextFor = (
    spec: StepRunSpec<S>,
    stepSignal: AbortSignal,
    self: AnyActorRef,
  ): StepContext<WithId<S>> => ({
    state,
    payload: spec.payload,
    inputs,
    outputs: outputsView,
    flowId: id,
    signal: stepSignal,
    kickoff(crew, crewOptions = {}) {
      const run = crew.run({ ...crewOptions, signal: stepSignal, parent: self, clock: now });
      run.events$.subscribe((event) => hub.relay(event, spec.step.name));
      return run.result;
    },
  });

  const runner = new LifecycleRunner<StepRunSpec<S>>(
    {
      attempt(spec, _attempt, stepSignal, self) {
        const step = forced.has(spec.step.name) ? forcedRouter(spec.step, forced, spec.run) : spec.step;
        return runFlowStep(step, contextFor(spec, stepSignal, self), stepSignal, {
          now,
          check: (name) => checkState(definition.state, state, name),
        });
      },
      publish(emitted, spec) {
        if (spec === undefined) return;
        const base = { type: 'flow.step' as const, name: spec.step.name, nodeId: spec.nodeId, run: spec.run };
        if (emitted.type === 'node.started') hub.emit({ ...base, status: 'started' });
        if (emitted.type === 'node.completed') {
          hub.emit({ ...base, status: 'completed', output: emitted.output });
          if (spec.step.kind === 'router')
            hub.emit({ type: 'flow.route', router: spec.step.name, label: String(emitted.output) });
        }
        if (emitted.type === 'node.failed') {
          const code = emitted.error.code === undefined ? {} : { code: emitted.error.code };
          hub.emit({ ...base, status: 'failed', error: emitted.error.message, ...code });
        }
      },
    },
    now,
  );

  const run = flowRuns.register({
    startRound(round, self) {
      const scheduled = round === 1 ? rounds.first() : upcoming;
      inRound = [];
      completedInRound.clear();
      for (const entry of scheduled) {
        const step = byName.get(entry.step) as StepDefinition<S>;
        const nodeId = runNodeId(entry);
        const payload =
          entry.trigger === undefined
            ? undefined
            : byName.has(entry.trigger)
              ? recorder.outputs.get(entry.trigger)
              : entry.trigger;
        inRound.push({ step, nodeId });
        pending += 1;
        runner.start({ nodeId, maxAttempts: 1, step, run: entry.run, payload }, self);
      }
    },
    recordDone(nodeId) {
      pending -= 1;
      completedInRound.add(nodeId);
    },
    recordFailed() {
      pending -= 1;
      failed = true;
    },
    advance(round) {
      const done = inRound
        .filter((r) => completedInRound.has(r.nodeId))
        .sort((a, b) => a.step.index - b.step.index);
      const emitted: string[] = [];
      for (const { step } of done) {
        emitted.push(step.name);
        if (step.kind === 'router') emitted.push(String(recorder.outputs.get(step.name)));
      }
      hub.emit({ type: 'flow.round', round, steps: done.map((d) => d.step.name), emitted });
      if (failed) return;
      const outcome = rounds.next(emitted);
      if (outcome.kind === 'next') {
        upcoming = outcome.steps;
        return;
      }
      failed = true;
      const error = new MaxRunsError(outcome.step, outcome.maxRuns);
      hub.emit({
        type: 'flow.step',
        name: outcome.step,
        nodeId: `${outcome.step}#${outcome.maxRuns + 1}`,
        run: outcome.maxRuns + 1,
        status: 'failed',
        error: error.message,
        code: error.code,
      });
    },
    roundSettled: () => pending === 0,
    hasFailed: () => failed,
    hasRound: () => upcoming.length > 0,
  });

  const actor = createActor(supervisor, {
    input: { run },
    id: `flow:${id}`,
    ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
  });
  actor.subscribe({ next: () => runner.flush(), error: () => {} });
  const startedAt = now();

  const result = runToEnd<FlowOutput<S>>({
    supervisor: actor,
    hub,
    runner,
    signal,
    nodes: definition.steps.length,
    process: 'flow',
    startEvent: { type: 'START' },
    complete(output) {
      const { error } = output as FlowMachineOutput;
      if (error !== undefined) throw error;
      const status = actor.getSnapshot().value === 'failed' ? 'failed' : 'completed';
      const out: FlowOutput<S> = {
        id,
        state,
        output: recorder.lastOutput,
        trail: [...recorder.trail],
        outputs: Object.fromEntries(recorder.outputs),
        emitted: [...recorder.emitted],
        status,
        errors: { ...recorder.errors },
        totalTimeMs: now() - startedAt,
      };
      return { result: out, status, totalTimeMs: out.totalTimeMs };
    },
    release: () => flowRuns.delete(run),
  });

  return { id, events$: hub.events$, actor, result };
}
