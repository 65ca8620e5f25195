import type { ZodType, z } from 'zod';
import {
  DuplicateStepError,
  InternalError,
  InvalidOptionError,
  isStatecrewError,
  MissingRoutesError,
  NameClashError,
  SelfTriggerError,
} from '../../errors.js';
import { createFlowMachine, type FlowMachine } from '../../machines/flow/flow-machine.js';
import type { ChildFlowShape, MapShape } from '../../machines/flow/step-shape.js';
import { namesIn, type Trigger } from '../../machines/flow/triggers.js';
import { parseOptions } from '../../options/parse.js';
import type { Store } from '../../stores/store.js';
import type { RunHistory } from '../../types.js';
import { keepsEventsOption } from '../durable/events-option.js';
import { headFacts } from '../durable/history-page.js';
import { RunOwner } from '../durable/run-owner.js';
import { type ClockOption, toClock } from '../engine/clock.js';
import type { PlainMachine } from '../engine/plain-machine.js';
import { optionalPositive, requiredText } from '../engine/validate.js';
import { hostTurn, RUN_START_OPERATIONS } from '../run/host-turn.js';
import { type AnalyzeOptions, analyzeFlow, type FlowAnalysis, type FlowPath, flowPaths } from './analysis.js';
import {
  type MapOptions,
  type MapSettings,
  mapOptionsSchema,
  type SubflowOptions,
  subflowOptionsSchema,
} from './compose-options.js';
import type { CrewAnswerInput } from './crew-steps.js';
import type {
  FlowDefinition,
  HumanOptions,
  ListenOptions,
  RouterFn,
  RouterOptions,
  SleepOptions,
  StateSource,
  StepDefinition,
  StepFn,
  StepOptions,
  WaitOptions,
} from './definition.js';
import { createFork, type ForkRequest, planFork } from './flow-fork.js';
import { type FlowForkOptions, type FlowHistoryOptions, flowForkOptionsSchema } from './flow-fork-options.js';
import { leaseMsOf } from './flow-kickoff.js';
import {
  type FlowSettings,
  type FreeFlowOptions,
  flowOptionsSchema,
  flowSettingsSchema,
  type StructuredFlowOptions,
} from './flow-options.js';
import type { FlowOutput, FlowRun } from './flow-output.js';
import {
  claimFlowRun,
  forkInputs,
  type HumanAnswerInput,
  type ResumeRequest,
  storedRunOf,
  storeFor,
} from './flow-resume.js';
import { startFlowRun } from './flow-run.js';
import { flowRunHistory } from './flow-run-history.js';
import {
  type FlowResumeOptions,
  type FlowRunOptions,
  flowResumeOptionsSchema,
  flowRunOptionsSchema,
} from './flow-run-options.js';
import type { FlowRunSeed } from './flow-run-parts.js';
import { earliestDeadline, loadSnapshot } from './flow-store.js';
import { threadStart } from './flow-thread.js';
import { refusePausableItems } from './map-refusals.js';
import { runMapStep } from './map-step.js';
import { flowToMachine, flowToMermaid } from './picture.js';
import { type FlowRunInfo, runInfo } from './snapshot.js';
import type { WithId } from './state.js';
import {
  humanOptionsSchema,
  PLAIN_STEP,
  type StepSettings,
  sleepOptionsSchema,
  stepSettings,
  waitOptionsSchema,
} from './step-options.js';
import { runSubflowStep } from './subflow-step.js';

export type { MapItemContext, MapOptions, MapRun, SubflowOptions } from './compose-options.js';
export type { FlowForkOptions, FlowHistoryOptions } from './flow-fork-options.js';
export type { FlowSettings, FreeFlowOptions, StructuredFlowOptions } from './flow-options.js';
export type { FlowResumeOptions } from './flow-run-options.js';

/**
 * A flow definition: an event graph of steps over a state. Build it with `start`, `listen` and
 * `router`; every `kickoff` is a new, independent run with a fresh copy of the initial state and its
 * own id, so one definition serves concurrent runs.
 *
 * @example
 * const review = createFlow({ name: 'review', initialState: { score: 0 } })
 *   .start('draft', () => 'v1')
 *   .router('grade', 'draft', ({ state }) => (state.score >= 7 ? 'approve' : 'revise'), { routes: ['approve', 'revise'] })
 *   .listen('publish', 'approve', () => 'ok');
 * const out = await review.kickoff({ inputs: { score: 9 } }); // out.trail: ['draft', 'grade', 'publish']
 */
export class Flow<S> {
  readonly name: string;
  readonly #state: StateSource<S>;
  readonly #steps: StepDefinition<WithId<S>>[] = [];
  readonly #stepNames = new Set<string>();
  /** Route label → the router that declares it. */
  readonly #labels = new Map<string, string>();
  /** The supervisor, built on the first run after the last change to the definition. */
  #supervisor: FlowMachine | undefined;
  /** Where runs are kept, unless a kickoff names another store. */
  readonly store: Store | undefined;
  /** How long a run's lease lasts without renewal, in ms, unless a kickoff says otherwise. */
  readonly leaseMs: number | undefined;
  /** The clock of its runs (timestamps, backoffs, deadlines, sleeps), unless a kickoff names another. */
  readonly clock: ClockOption | undefined;

  constructor(name: string, state: StateSource<S>, settings: FlowSettings = {}) {
    requiredText('createFlow', 'name', name);
    const { store, leaseMs, clock } = parseOptions(flowSettingsSchema, 'createFlow', settings);
    this.name = name;
    this.#state = state;
    this.store = store;
    this.leaseMs = leaseMs;
    this.clock = clock;
  }

  /** Adds a step that runs first, in round 1; `retries`, `retryDelayMs` and `timeoutMs` say how it is tried. */
  start(name: string, fn: StepFn<WithId<S>>, options?: StepOptions): this {
    const settings = stepSettings(this.#where(name), 'start', options);
    return this.#add(name, 'start', undefined, fn, undefined, settings);
  }

  /** Adds a step that runs when `trigger` is satisfied; `maxRuns` lets it run again on new emissions. */
  listen(name: string, trigger: Trigger, fn: StepFn<WithId<S>>, options?: ListenOptions): this {
    const settings = stepSettings(this.#where(name), 'listen', options);
    return this.#add(name, 'listen', trigger, fn, undefined, settings);
  }

  /** Adds a step that returns one of its `routes`; the label is emitted after the router's name. */
  router<const R extends string>(
    name: string,
    trigger: Trigger,
    fn: RouterFn<WithId<S>, NoInfer<R>>,
    options: RouterOptions<R>,
  ): this {
    const routes = (options as Partial<RouterOptions<R>> | undefined)?.routes;
    if (!Array.isArray(routes) || routes.length === 0) throw new MissingRoutesError(this.name, name);
    const settings = stepSettings(this.#where(name), 'router', options);
    return this.#add(name, 'router', trigger, fn, routes, settings);
  }

  /**
   * Adds a step a human answers: when its trigger fires, the run pauses at the end of the round
   * (`status: 'paused'`, `out.pending`) with its snapshot saved, until `resume(id, { route, feedback })`
   * — in any process — completes it with output `{ route, feedback }`, emitting its name and the route
   * label (listeners of the label get `{ route, feedback }` as payload). With `timeoutMs`, a human who
   * has not answered by then is timed out by a runner: the step emits `onTimeout` instead (or fails
   * with `step_timeout` without one). Needs a store.
   */
  human<const R extends string>(
    name: string,
    trigger: Trigger,
    options: HumanOptions<NoInfer<R>, WithId<S>>,
  ): this {
    const where = this.#where(name);
    const routes = (options as Partial<HumanOptions<R>> | undefined)?.routes;
    if (!Array.isArray(routes) || routes.length === 0) throw new MissingRoutesError(this.name, name);
    const { prompt } = parseOptions(humanOptionsSchema, where, options);
    const answered = () => {
      throw new InternalError('Flow.human', `Human step "${name}" is answered through resume`);
    };
    const deadline = deadlineOf(where, options);
    const extra = { prompt: prompt as StepDefinition<WithId<S>>['prompt'], ...deadline };
    return this.#add(name, 'human', trigger, answered, routes, PLAIN_STEP, extra);
  }

  /**
   * Adds a step that waits for outside event `event`: when its trigger fires, the run pauses at the
   * end of the round (`status: 'paused'`, `out.pending: { step, kind: 'event', event, timeoutAt }`),
   * until `signal(id, event, payload)` — in any process — completes it: it emits its name, its output
   * (and its listeners' payload) is the signal's payload. With `timeoutMs`, a runner times it out
   * then: it emits `onTimeout` instead (or fails with `step_timeout` without one). Needs a store.
   *
   * @example
   * flow.wait('payment', 'invoice_sent', { event: 'payment.received', timeoutMs: 3 * DAY, onTimeout: 'payment_late' });
   */
  wait(name: string, trigger: Trigger, options: WaitOptions): this {
    const where = this.#where(name);
    if (typeof options !== 'object' || options === null) {
      throw new InvalidOptionError(where, 'options', '{ event, timeoutMs?, onTimeout? }', options);
    }
    const checked = parseOptions(waitOptionsSchema, where, options);
    const waiting = () => {
      throw new InternalError('Flow.wait', `Wait step "${name}" is completed through signal`);
    };
    const extra = { event: checked.event, ...deadlineOf(where, checked) };
    return this.#add(name, 'wait', trigger, waiting, undefined, PLAIN_STEP, extra);
  }

  /**
   * Adds a step that sleeps: `{ ms }` from when it starts, or `{ until: (ctx) => Date | number }`.
   * Its wake time is stored before it sleeps, on the run's clock (the run's `kickoff` awaits it and
   * keeps its lease); a run whose process died goes on at the stored time, never before. It emits its
   * name when it wakes; its output (its listeners' payload) is the payload it was triggered with.
   *
   * @example
   * flow.sleep('cool_off', 'delivered', { ms: 24 * 60 * 60 * 1000 });
   */
  sleep(name: string, trigger: Trigger, options: SleepOptions<WithId<S>>): this {
    const where = this.#where(name);
    const sleep = sleepOf(where, options);
    const pass = ({ payload }: { payload: unknown }) => payload;
    return this.#add(name, 'sleep', trigger, pass, undefined, PLAIN_STEP, { sleep });
  }

  /**
   * Adds a step that runs a child run per item of `items(ctx)`: `run` is a crew, a flow, or a
   * function `(item, ctx) => output`; at most `concurrency` (4) at once. Each item's child run is
   * `<run id>/<node id>/<itemId>`, kept in the run's store; a resumed run runs only the items not
   * finished. The step's output is `[{ item, itemId, status, output?, error? }]` in item order. An
   * item that fails after its `retries` fails the step (`map_item_failed`, so `failed(step)` handles
   * it) unless `allowFailures`. Too many items (`maxItems`), no array or bad ids: `invalid_map_items`.
   *
   * @example
   * flow.map('summaries', 'fetched', { items: ({ state }) => state.docs, run: summarizeCrew, concurrency: 8 });
   */
  map<I>(name: string, trigger: Trigger, options: MapOptions<WithId<S>, I>): this {
    const where = this.#where(name);
    if (typeof options !== 'object' || options === null) {
      throw new InvalidOptionError(where, 'options', '{ items, run, ... }', options);
    }
    const checked = parseOptions(mapOptionsSchema, where, options);
    const runs = this.#mapRunKind(where, checked.run);
    refusePausableItems(where, checked.run, runs);
    const settings: MapSettings = {
      ...checked,
      runs,
      inputs: checked.inputs,
      itemId: checked.itemId,
      maxItems: checked.maxItems,
      timeoutMs: checked.timeoutMs,
    };
    const map: MapShape = {
      runs,
      ...(runs === 'flow' ? { flow: childShape(checked.run as Flow<unknown>) } : {}),
      ...(runs === 'crew' ? { crew: (checked.run as { name: string }).name } : {}),
      concurrency: checked.concurrency,
      maxItems: checked.maxItems,
      allowFailures: checked.allowFailures,
      itemRetries: checked.retries,
      itemRetryDelayMs: checked.retryDelayMs,
      itemTimeoutMs: checked.timeoutMs,
    };
    const body = (context: unknown) => runMapStep(context as never, settings);
    const step = { ...PLAIN_STEP, maxRuns: checked.maxRuns };
    return this.#add(name, 'map', trigger, body, undefined, step, { map });
  }

  /**
   * Adds a step that runs flow `child` as its child run (`<run id>/<node id>`, in the run's store),
   * with `inputs(ctx)` as its inputs; the child's output is the step's output, and a failed child
   * fails the step (`subflow_failed`). A pause inside the child (a human step, a wait, a crew's
   * approval) pauses this run, `pending` naming the path (`review › approve`); `resume`, `signal`
   * and crew answers on this run reach the child.
   *
   * @example
   * flow.flow('review', 'drafted', reviewFlow, { inputs: ({ state }) => ({ draft: state.draft }) });
   */
  flow<C extends object>(
    name: string,
    trigger: Trigger,
    child: Flow<C>,
    options: SubflowOptions<WithId<S>> = {},
  ): this {
    const where = this.#where(name);
    if (!(child instanceof Flow)) throw new InvalidOptionError(where, 'child', 'a flow (createFlow)', child);
    if ((child as unknown) === this) {
      throw new InvalidOptionError(where, 'child', 'another flow than the one it is a step of', child.name);
    }
    const checked = parseOptions(subflowOptionsSchema, where, options);
    const inputs = checked.inputs as Parameters<typeof runSubflowStep>[2];
    const body = (context: unknown) => runSubflowStep(context as never, child as never, inputs);
    const step = { ...PLAIN_STEP, maxRuns: checked.maxRuns };
    return this.#add(name, 'flow', trigger, body, undefined, step, {
      subflow: childShape(child as Flow<unknown>),
    });
  }

  /** What each item of a map step runs: a flow, a function, or a crew (an object that runs as a child). */
  #mapRunKind(where: string, run: unknown): MapShape['runs'] {
    if (run instanceof Flow) {
      if (run === (this as unknown as Flow<object>)) {
        throw new InvalidOptionError(where, 'run', 'another flow than the one it is a step of', run.name);
      }
      return 'flow';
    }
    if (typeof run === 'function') return 'function';
    const crew = run as { runAsChild?: unknown; name?: unknown };
    if (typeof crew.runAsChild === 'function' && typeof crew.name === 'string') return 'crew';
    throw new InvalidOptionError(where, 'run', 'a crew, a flow, or a function (item, ctx) => output', run);
  }

  /** The definition as the runtime reads it. */
  get definition(): FlowDefinition<WithId<S>> {
    return {
      name: this.name,
      steps: [...this.#steps],
      state: this.#state as StateSource<WithId<S>>,
      store: this.store,
      leaseMs: this.leaseMs,
    };
  }

  /**
   * Proves termination and finds unreachable steps, unused routes and dead ends on the flow's abstract
   * state graph, whose only choices are route labels; lists every path (at most `limit`).
   */
  analyze(options: AnalyzeOptions = {}): FlowAnalysis {
    return analyzeFlow(this.definition, options);
  }

  /** Every route combination, with the trail it runs and how it ends (`failed` for `max_runs`). */
  paths(options: AnalyzeOptions = {}): FlowPath[] {
    return flowPaths(this.definition, options);
  }

  /** The flow's control flow as a plain XState machine (JSON-safe, opens in Stately). */
  toMachine(): PlainMachine {
    return flowToMachine(this.definition);
  }

  /** A Mermaid flowchart of the definition, route labels on the edges. */
  toMermaid(): string {
    return flowToMermaid(this.definition);
  }

  /** Starts a run and returns its id, event stream, supervisor actor and result. */
  run(given: FlowRunOptions = {}): FlowRun<WithId<S>> {
    const options = parseOptions(flowRunOptionsSchema, `Flow "${this.name}" run`, given);
    for (const option of ['from', 'thread'] as const) {
      if (options[option] === undefined) continue;
      const why = option === 'from' ? 'a fork reads the store first' : 'a thread reads its last run first';
      throw new InvalidOptionError(
        `Flow "${this.name}" run`,
        option,
        `used with kickoff (${why})`,
        options[option],
      );
    }
    return this.#start(options);
  }

  /**
   * Runs the flow to the end: `run(options).result`. With `from`, forks that stored run: a new run
   * starting from its stored state, `inputs` merged over it. With `thread`, goes on from the last
   * state of the thread's previous run (a new run, a new id; `thread_busy` while that run is running
   * or paused).
   */
  async kickoff(given: FlowRunOptions = {}): Promise<FlowOutput<WithId<S>>> {
    const options = parseOptions(flowRunOptionsSchema, `Flow "${this.name}" kickoff`, given);
    if (options.thread !== undefined) return this.#onThread({ ...options, thread: options.thread });
    // At once unless this turn of the loop is spent by other runs' work (see Crew.kickoff).
    if (options.from === undefined) return hostTurn.whenRoom(() => this.run(options).result);
    const definition = this.definition as FlowDefinition<unknown>;
    const store = storeFor(definition, options.store, 'fork a run');
    const source = await storedRunOf(definition, store, options.from, 'fork');
    const { from: _from, ...rest } = options;
    return this.#start({ ...rest, store, inputs: forkInputs(source, options.inputs) }).result;
  }

  /** Runs on a thread: takes its next entry, starts from its previous run's state (see `threadStart`). */
  async #onThread(options: FlowRunOptions & { thread: string }): Promise<FlowOutput<WithId<S>>> {
    const definition = this.definition as FlowDefinition<unknown>;
    const start = await threadStart(definition, options, options.clock ?? this.clock);
    let run: FlowRun<WithId<S>>;
    try {
      run = this.#start({ ...options, store: start.store, inputs: start.inputs });
    } catch (error) {
      await start.abandon();
      throw error;
    }
    return run.result.catch(async (error: unknown) => {
      // The id was another run's: this run never held it, so it never was the thread's.
      if (isStatecrewError(error) && error.code === 'run_exists') await start.abandon();
      throw error;
    });
  }

  /**
   * Goes on with a stored run, in this or any process, with any definition object of this flow:
   * a run whose process died (or that was aborted) continues — the steps that were in flight run
   * again; a failed run runs its failed steps again, then goes on; a completed run returns its stored
   * result and runs nothing. The result covers the whole run; `totalTimeMs` this segment only. The run
   * is claimed first: `run_locked` while another owner runs it; of two answers to one paused run at
   * once, exactly one goes on. A run paused because a crew a step kicked off waits for a human takes
   * `{ approvals, reviews }` (by the crew's call ids and task node ids, `pending.pending`): the step
   * runs again and its `ctx.kickoff` goes on with the stored crew run.
   */
  async resume(
    id: string,
    answer?: HumanAnswerInput | CrewAnswerInput,
    options: FlowResumeOptions<WithId<S>> = {},
  ): Promise<FlowOutput<WithId<S>>> {
    const checked = parseOptions(flowResumeOptionsSchema, `Flow "${this.name}" resume`, options);
    return this.#goOn(id, { kind: 'answer', answer }, checked as FlowResumeOptions<WithId<S>>);
  }

  /**
   * Sends outside event `event` to stored run `id`, in this or any process, with any definition
   * object of this flow: every wait step of the paused run waiting for `event` completes (emitting its
   * name; its listeners get `payload`), and the run goes on here, like `resume`. A run that waits for
   * no such event is left as it is (`no_waiter`); of two signals at once, exactly one goes on.
   *
   * @example
   * await order.signal(orderId, 'payment.received', { amount: 42 });
   */
  async signal(
    id: string,
    event: string,
    payload?: unknown,
    options: FlowResumeOptions<WithId<S>> = {},
  ): Promise<FlowOutput<WithId<S>>> {
    const checked = parseOptions(flowResumeOptionsSchema, `Flow "${this.name}" signal`, options);
    requiredText(`Flow "${this.name}" signal`, 'event', event);
    return this.#goOn(id, { kind: 'signal', event, payload }, checked as FlowResumeOptions<WithId<S>>);
  }

  /** Claims stored run `id` with what `request` brings it and runs it on, here. */
  async #goOn(
    id: string,
    request: ResumeRequest,
    options: FlowResumeOptions<WithId<S>>,
  ): Promise<FlowOutput<WithId<S>>> {
    const definition = this.definition as FlowDefinition<unknown>;
    const store = storeFor(definition, options.store, 'resume a run');
    const clock = toClock(options.clock ?? this.clock);
    const keepEvents = keepsEventsOption(`Flow "${this.name}" resume`, options.events);
    const owner = new RunOwner(store, id, leaseMsOf(definition, options), clock, keepEvents);
    const claim = await claimFlowRun(definition, owner, clock, request);
    if (claim.kind === 'completed') return claim.output as FlowOutput<WithId<S>>;
    const { snapshot, inputs, answers, lineage } = claim;
    const seed: FlowRunSeed = { owner, resume: snapshot, answers, lineage };
    return this.#runSeeded(seed, { ...options, clock, store }, inputs);
  }

  /** Runs a stored run its owner claimed (`seed`) on, here; one that never started gives its claim back. */
  async #runSeeded(
    seed: FlowRunSeed,
    options: FlowResumeOptions<WithId<S>>,
    inputs: Record<string, unknown>,
  ): Promise<FlowOutput<WithId<S>>> {
    try {
      const { onRun, ...runOptions } = options;
      const run = this.#start({ ...runOptions, inputs }, seed);
      onRun?.(run);
      return await run.result;
    } catch (error) {
      // A run that never started (a definition error) gives its claim back, its status as it was.
      await seed.owner.releaseQuietly(seed.resume?.status);
      throw error;
    }
  }

  /**
   * The committed history of stored run `id` of this flow: its step runs in commit order (across
   * resumes, and a fork's kept ones first), each with its output and the state it left, one page
   * with `after` and `limit` — `readHistory` for a run of this flow. `run_not_found`, `flow_mismatch`
   * for another flow's run, `store_required` without a store.
   *
   * @example
   * const { checkpoints } = await review.history(runId);
   * for (const c of checkpoints) console.log(c.seq, c.checkpoint, c.output);
   */
  async history(id: string, options: FlowHistoryOptions = {}): Promise<RunHistory> {
    const definition = this.definition as FlowDefinition<unknown>;
    const store = storeFor(definition, options.store, "read a run's history");
    requiredText(`Flow "${this.name}" history`, 'id', id);
    const { store: _store, ...page } = options;
    return flowRunHistory(definition, store, id, page);
  }

  /**
   * Forks stored run `id` at checkpoint `at` (a node id `history` lists, or its seq): a new run that
   * keeps the step runs committed up to and including it — none of them runs again — and runs on
   * from there, with the checkpoint's state changed by `state` (a patch or a function), kept outputs
   * changed by `outputs` (a router's label or a human's answer at the checkpoint takes the other
   * branch) and `inputs` merged over the state. The source is unchanged; a running source is read as
   * committed. `out.forkedFrom` (and `getRun`, `history`) tell the lineage. `checkpoint_not_found`,
   * `run_not_found`, `flow_mismatch`, `run_exists` for a taken `id`, `invalid_option`, `invalid_state`.
   *
   * @example
   * const { checkpoints } = await review.history(runId);
   * const out = await review.fork(runId, { at: 'grade', outputs: { grade: 'revise' }, state: { score: 3 } });
   * // out.forkedFrom: { runId, checkpoint: 'grade' }; 'draft' did not run again
   */
  async fork(id: string, options: FlowForkOptions<WithId<S>>): Promise<FlowOutput<WithId<S>>> {
    const where = `Flow "${this.name}" fork`;
    const checked = parseOptions(flowForkOptionsSchema, where, options) as FlowForkOptions<WithId<S>>;
    requiredText(where, 'id', id);
    const definition = this.definition as FlowDefinition<unknown>;
    const store = storeFor(definition, checked.store, 'fork a run');
    const clock = toClock(checked.clock ?? this.clock);
    const { at, outputs, state, inputs, id: newId, ...runOptions } = checked;
    const request = { at, outputs, inputs, id: newId, state: state as ForkRequest['state'] };
    const plan = await planFork(definition, store, id, request, clock.now());
    const keepEvents = keepsEventsOption(where, checked.events);
    const owner = new RunOwner(store, plan.id, leaseMsOf(definition, checked), clock, keepEvents);
    const snapshot = await createFork(owner, this.name, plan, checked);
    const seed: FlowRunSeed = { owner, resume: snapshot, lineage: plan.lineage };
    return this.#runSeeded(seed, { ...runOptions, clock, store }, plan.inputs);
  }

  /**
   * When the first of the waiting steps of paused run `id` times out (epoch ms on the run's clock),
   * if any has a deadline; undefined for a run that waits for no deadline (or that is not stored).
   */
  nextDeadline(id: string, store?: Store): Promise<number | undefined> {
    const definition = this.definition as FlowDefinition<unknown>;
    return earliestDeadline(storeFor(definition, store, 'read a run'), id);
  }

  /** What the store holds of run `id` (undefined when nothing); `store_required` without a store. */
  async getRun(id: string, options: { store?: Store | undefined } = {}): Promise<FlowRunInfo | undefined> {
    const definition = this.definition as FlowDefinition<unknown>;
    const store = storeFor(definition, options.store, 'read a run');
    const [snapshot, head] = await Promise.all([loadSnapshot(store, id), store.readRun(id)]);
    return snapshot === undefined ? undefined : runInfo(snapshot, headFacts(head).forkedFrom);
  }

  #start(options: FlowRunOptions, seed?: FlowRunSeed): FlowRun<WithId<S>> {
    hostTurn.spend(RUN_START_OPERATIONS);
    const definition = this.definition;
    this.#supervisor ??= createFlowMachine(definition);
    const clock = options.clock ?? this.clock;
    return startFlowRun(
      definition,
      clock === undefined ? options : { ...options, clock },
      this.#supervisor,
      seed,
    );
  }

  #add(
    name: string,
    kind: StepDefinition<S>['kind'],
    trigger: Trigger | undefined,
    fn: unknown,
    routes: readonly string[] | undefined,
    settings: StepSettings,
    extra: StepExtras<S> = {},
  ): this {
    const where = this.#where(name);
    requiredText(`Flow "${this.name}"`, 'step name', name);
    if (typeof fn !== 'function') throw new InvalidOptionError(where, 'fn', 'a function', fn);
    if (this.#stepNames.has(name)) throw new DuplicateStepError(this.name, name);
    const router = this.#labels.get(name);
    if (router !== undefined) throw new NameClashError(this.name, name, router);
    if (trigger !== undefined) {
      checkTrigger(where, trigger);
      if (namesIn(trigger).has(name)) throw new SelfTriggerError(this.name, name);
    }
    const labels = [...(routes ?? []), ...(extra.onTimeout === undefined ? [] : [extra.onTimeout])];
    for (const label of labels) {
      requiredText(where, 'route label', label);
      if (label === name || this.#stepNames.has(label)) throw new NameClashError(this.name, label, name);
    }
    if (new Set(labels).size !== labels.length) {
      throw new InvalidOptionError(where, 'routes', 'distinct labels (onTimeout included)', labels);
    }
    this.#stepNames.add(name);
    this.#supervisor = undefined;
    for (const label of labels) this.#labels.set(label, name);
    this.#steps.push({
      name,
      index: this.#steps.length,
      kind,
      trigger,
      routes,
      ...settings,
      ...extra,
      run: fn as StepFn<WithId<S>>,
    });
    return this;
  }

  /** How errors name step `name` of this flow. */
  #where(name: unknown): string {
    return `Flow "${this.name}" step "${String(name)}"`;
  }
}

function checkTrigger(where: string, trigger: Trigger): void {
  if (typeof trigger === 'string') {
    requiredText(where, 'trigger', trigger);
    return;
  }
  const gate = trigger as { kind?: unknown; of?: unknown };
  if ((gate.kind !== 'or' && gate.kind !== 'and') || !Array.isArray(gate.of) || gate.of.length === 0) {
    throw new InvalidOptionError(
      where,
      'trigger',
      'a step name, a route label, or(...) or and(...) of them',
      trigger,
    );
  }
  for (const inner of trigger.of) checkTrigger(where, inner);
}

/** What a human, wait, sleep, map or flow step adds to a step. */
type StepExtras<S> = Pick<
  StepDefinition<WithId<S>>,
  'prompt' | 'event' | 'deadlineMs' | 'onTimeout' | 'sleep' | 'map' | 'subflow'
>;

/** A child flow's shape, read when asked: steps added to the child later are in it. */
function childShape(child: Flow<unknown>): ChildFlowShape {
  return {
    name: child.name,
    get steps() {
      return child.definition.steps;
    },
  };
}

/** A waiting step's deadline: `timeoutMs` (a number > 0) and the label it emits then (needs `timeoutMs`). */
function deadlineOf(
  where: string,
  options: { timeoutMs?: number | undefined; onTimeout?: string | undefined },
): { deadlineMs?: number; onTimeout?: string } {
  const { timeoutMs, onTimeout } = options;
  optionalPositive(where, 'timeoutMs', timeoutMs);
  if (onTimeout !== undefined) {
    requiredText(where, 'onTimeout', onTimeout);
    if (timeoutMs === undefined)
      throw new InvalidOptionError(where, 'onTimeout', 'set with timeoutMs', onTimeout);
  }
  return {
    ...(timeoutMs === undefined ? {} : { deadlineMs: timeoutMs }),
    ...(onTimeout === undefined ? {} : { onTimeout }),
  };
}

/** A sleep step's options, checked: `{ ms }` (a number ≥ 0) or `{ until }` (a function). */
function sleepOf<S>(where: string, options: SleepOptions<S>): SleepOptions<S> {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(where, 'options', '{ ms } or { until }', options);
  }
  const { ms, until } = parseOptions(sleepOptionsSchema, where, options);
  if ((ms === undefined) === (until === undefined)) {
    throw new InvalidOptionError(where, 'options', 'exactly one of ms and until', options);
  }
  return options;
}

/**
 * Creates a flow definition over a free state object or a zod-checked one. Every run's state gets a
 * stable `id`.
 *
 * @example
 * const flow = createFlow({ name: 'triage', initialState: { amount: 0, trail: [] as string[] } });
 */
export function createFlow<S extends object>(options: FreeFlowOptions<S>): Flow<S>;
export function createFlow<Z extends ZodType>(options: StructuredFlowOptions<Z>): Flow<z.infer<Z>>;
export function createFlow(options: FreeFlowOptions<object> | StructuredFlowOptions<ZodType>): Flow<object> {
  const {
    name,
    state,
    initialState = {},
    ...settings
  } = parseOptions(flowOptionsSchema, 'createFlow', options);
  const source: StateSource<object> =
    state === undefined ? { kind: 'free', initial: initialState } : { kind: 'schema', schema: state };
  return new Flow(name, source, settings);
}
