import { handledSteps } from '../../machines/flow/outcomes.js';
import type { MemoryEntry } from '../../types.js';
import { keepsEventsOption } from '../durable/events-option.js';
import { RunOwner } from '../durable/run-owner.js';
import { type Clock, type ClockOption, toClock } from '../engine/clock.js';
import { EventHub } from '../engine/event-hub.js';
import type { LifecycleRunner } from '../engine/lifecycle-runner.js';
import { FlowCrewWaits } from './crew-steps.js';
import type { FlowDefinition, HumanPromptContext, StepDefinition } from './definition.js';
import { FlowKeeper } from './flow-keeper.js';
import { type FlowKickoff, leaseMsOf } from './flow-kickoff.js';
import { FlowRunLinks } from './flow-run-links.js';
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
}

/** A flow run's working parts, wired to each other. */
export interface FlowRunParts<S> {
  state: WithId<S>;
  clock: Clock;
  recorder: FlowRecorder;
  hub: EventHub;
  /** Keeps the run in its store; undefined for a run without one. */
  keeper: FlowKeeper | undefined;
  runner: LifecycleRunner<StepRunSpec<S>>;
  /** The run's effects, which its machine calls. */
  driver: RoundDriver;
  links: FlowRunLinks;
}

/** What wiring a run reads of its options besides the checked kickoff. */
export interface WiringOptions {
  clock?: ClockOption | undefined;
  leaseMs?: number | undefined;
  events?: 'store' | undefined;
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
  const hub = new EventHub(state.id, clock.now, (event) => recorder.apply(event));
  const outputs = recorder.outputsView();
  const links = new FlowRunLinks();
  const { leaseMs, events } = options;
  const keeper = keeperOf(definition, kickoff, { clock, recorder, links, hub, leaseMs, events }, seed);
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
      const run = { state: (draft ?? state) as typeof state, inputs, hub, clock, results, outputs, crews };
      return stepContext(spec, signal, self, run);
    },
    waits: (spec, failure) => crewWaits.note(spec, failure),
    checkState: (spec, output) => {
      checkState(definition.state, state, spec.step.name);
      keeper?.encodeStep(spec.nodeId, spec.step.name, output);
    },
  });
  const driver = createRoundDriver({
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
  links.connect(driver);
  return { state, clock, recorder, hub, keeper, runner, driver, links };
}

/** What a human step asks: its prompt, of the run when it is a function; its name when it has none. */
function promptOf<S>(step: StepDefinition<S>, context: HumanPromptContext<S>): string {
  const { prompt } = step;
  if (typeof prompt === 'string') return prompt;
  if (prompt === undefined) return step.name;
  return prompt(context);
}

/**
 * The keeper of a run with a store, holding it through the seed's owner (a resumed run) or a new
 * owner with the run's lease; undefined for a run without a store.
 */
function keeperOf<S>(
  definition: FlowDefinition<S>,
  kickoff: FlowKickoff<S>,
  run: {
    clock: Clock;
    recorder: FlowRecorder;
    links: FlowRunLinks;
    hub: EventHub;
    leaseMs?: number | undefined;
    events?: 'store' | undefined;
  },
  seed: FlowRunSeed | undefined,
): FlowKeeper | undefined {
  const { store, state, inputs } = kickoff;
  if (store === undefined) return undefined;
  const { clock, links } = run;
  const keepEvents = keepsEventsOption(`Flow "${definition.name}" kickoff`, run.events);
  const owner = seed?.owner ?? new RunOwner(store, state.id, leaseMsOf(definition, run), clock, keepEvents);
  return new FlowKeeper(owner, {
    flow: definition.name,
    id: state.id,
    clock,
    recorder: run.recorder,
    state,
    inputs,
    waiting: () => links.waiting(),
    halt: (error) => links.halt(error),
    events$: run.hub.events$,
    stored: seed?.resume,
  });
}
