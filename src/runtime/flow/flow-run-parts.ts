import { handledSteps } from '../../machines/flow/outcomes.js';
import type { JsonValue } from '../../stores/store.js';
import type { MemoryEntry, RunLineage } from '../../types.js';
import { keepsEventsOption } from '../durable/events-option.js';
import { RunOwner } from '../durable/run-owner.js';
import { type Clock, type ClockOption, toClock } from '../engine/clock.js';
import type { NodeRunner } from '../run/node-runner.js';
import { Run, type RunKeeping } from '../run/run.js';
import { FlowCrewWaits } from './crew-steps.js';
import type { FlowDefinition, HumanPromptContext, StepDefinition } from './definition.js';
import { type FlowKickoff, leaseMsOf } from './flow-kickoff.js';
import { FlowRecords, storedInputs } from './flow-records.js';
import type { StoredFlowSnapshot } from './flow-store.js';
import { FlowRecorder } from './recorder.js';
import { createRoundDriver, type RoundDriver } from './round-driver.js';
import type { StepAnswer } from './snapshot.js';
import { checkState, type WithId } from './state.js';
import { stepContext } from './step-context.js';
import { createStepRunner, type StepRunSpec } from './step-runner.js';

/** Where a run starts from besides the definition: a stored run it goes on with. */
export interface FlowRunSeed {
  /**
   * The snapshot of the run to go on with (same id): its state, rounds and outputs; absent for a run
   * whose process died before its first header, which starts again from its stored inputs.
   */
  resume: StoredFlowSnapshot | undefined;
  /** The answers to its waiting steps (a paused run): a human's, a signal's, or timeouts. */
  answers?: readonly StepAnswer[] | undefined;
  /** The owner that claimed the stored run. */
  owner: RunOwner;
  /** A fork's lineage, as its head keeps it: its result tells it. */
  lineage?: RunLineage | undefined;
}

/** A flow run's working parts, wired to each other. */
export interface FlowRunParts<S> {
  state: WithId<S>;
  /** The run: its event door, its commit path, its claim and its drive. */
  run: Run;
  recorder: FlowRecorder;
  /** What the run writes to its store; undefined for a run without one. */
  records: FlowRecords | undefined;
  runner: NodeRunner<StepRunSpec<S>>;
  /** The run's effects, which its machine calls. */
  driver: RoundDriver;
}

/** What wiring a run reads of its options besides the checked kickoff. */
export interface WiringOptions {
  clock?: ClockOption | undefined;
  leaseMs?: number | undefined;
  events?: 'store' | undefined;
  /** The thread the run is on (`kickoff({ thread })`): its head keeps it beside its inputs. */
  thread?: string | undefined;
  /** A child flow run's parent (a flow step's): its head keeps it as `data.parent`. */
  link?: ParentLink | undefined;
}

/** The parent a child flow run's head names (`data.parent`): the parent run, and its step run that started it. */
export interface ParentLink {
  runId: string;
  nodeId: string;
  step: string;
}

/**
 * Wires a checked kickoff's run: the recorder (restored from a resumed run), the event hub, the
 * keeper when it has a store, the step runner and the round driver (the machine's effects).
 */
export function wireFlowRun<S>(
  definition: FlowDefinition<S>,
  kickoff: FlowKickoff<S>,
  options: WiringOptions,
  seed: FlowRunSeed | undefined,
): FlowRunParts<S> {
  const { state, inputs } = kickoff;
  const clock = toClock(options.clock);
  const recorder = new FlowRecorder();
  if (seed?.resume !== undefined) recorder.restore(seed.resume);
  const stored = kickoff.store === undefined ? undefined : storedInputs(definition.name, inputs);
  const keeping = keepingOf(definition, kickoff, { ...options, clock, stored }, seed);
  const run = new Run({ id: state.id, clock, reduce: (event) => recorder.apply(event), keeping });
  const hub = run.events;
  const outputs = recorder.outputsView();
  // The records ask the round driver what waits; it is made after them.
  let driver: RoundDriver | undefined;
  const keeper =
    run.commits === undefined
      ? undefined
      : new FlowRecords(run.commits, {
          flow: definition.name,
          id: state.id,
          clock,
          recorder,
          state,
          inputs: stored ?? null,
          waiting: () => driver?.waiting() ?? [],
          stored: seed?.resume,
        });
  const results: MemoryEntry[] = [];
  const handled = handledSteps(definition.steps);
  const crewWaits = new FlowCrewWaits(seed?.resume?.pending, seed?.answers);
  const crews = { store: kickoff.store, waits: crewWaits };
  const runner = createStepRunner<S>({
    hub,
    clock,
    forced: kickoff.forced,
    handled,
    sleep: {
      sleeps: new Map(Object.entries(seed?.resume?.sleeps ?? {})),
      noteWake: async (nodeId, wakeAt) => keeper?.noteWake(nodeId, wakeAt),
    },
    state,
    contextFor: (spec, signal, self, draft) => {
      const { commits } = run;
      const steps = { state: (draft ?? state) as typeof state, inputs, hub, clock, results, outputs, crews };
      const { forced } = kickoff;
      return stepContext(spec, signal, self, { ...steps, flow: definition.name, commits, forced });
    },
    checkState: (spec, output) => {
      checkState(definition.state, state, spec.step.name, run.id);
      keeper?.encodeStep(spec.nodeId, spec.step.name, output);
    },
  });
  driver = createRoundDriver({
    steps: definition.steps,
    hub,
    recorder,
    runner,
    resume: seed?.resume,
    answers: seed?.answers,
    forced: kickoff.forced,
    promptOf: (step, payload) => promptOf(step, { state, payload, inputs, outputs, flowId: state.id }),
    // Each step stages what is new — its run and the header — never the whole run again.
    onStepSettled: keeper && ((completed) => keeper.stepSettled(completed)),
    onRoundCompleted: keeper && ((n, round) => keeper.roundCompleted(n, round)),
    crewWaits,
  });
  return { state, run, recorder, records: keeper, runner, driver };
}

/** What a human step asks: its prompt, of the run when it is a function; its name when it has none. */
function promptOf<S>(step: StepDefinition<S>, context: HumanPromptContext<S>): string {
  const { prompt } = step;
  if (typeof prompt === 'string') return prompt;
  if (prompt === undefined) return step.name;
  return prompt(context);
}

/**
 * Where a run with a store is kept: the seed's owner (a resumed run, whose head goes back to its
 * status if it ends before its first header landed), or a new owner with the run's lease, which
 * claims the run's id. Undefined for a run without a store.
 */
function keepingOf<S>(
  definition: FlowDefinition<S>,
  kickoff: FlowKickoff<S>,
  options: WiringOptions & { clock: Clock; stored: JsonValue | undefined },
  seed: FlowRunSeed | undefined,
): RunKeeping | undefined {
  const { store, state } = kickoff;
  if (store === undefined || options.stored === undefined) return undefined;
  if (seed !== undefined) return { owner: seed.owner, untouched: seed.resume?.status };
  const what = `Flow "${definition.name}" kickoff`;
  const keepEvents = keepsEventsOption(what, options.events);
  const owner = new RunOwner(store, state.id, leaseMsOf(definition, options), options.clock, keepEvents);
  const data = {
    inputs: options.stored,
    ...(options.thread === undefined ? {} : { thread: options.thread }),
    ...(options.link === undefined ? {} : { parent: { ...options.link } }),
    ...(keepEvents ? { events: 'store' } : {}),
  };
  return { owner, claim: { kind: 'flow', name: definition.name, data, what } };
}
