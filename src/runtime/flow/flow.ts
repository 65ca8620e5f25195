import type { ZodType, z } from 'zod';
import {
  DuplicateStepError,
  InternalError,
  InvalidOptionError,
  MissingRoutesError,
  NameClashError,
  SelfTriggerError,
} from '../../errors.js';
import { checkStore, type Store } from '../../stores/store.js';
import { checkOptionKeys, FLOW_OPTIONS, FLOW_RESUME_OPTIONS, FLOW_RUN_OPTIONS } from '../crew/option-keys.js';
import { RunOwner } from '../durable/run-owner.js';
import { toClock } from '../engine/clock.js';
import type { PlainMachine } from '../engine/plain-machine.js';
import { optionalInteger, requiredText } from '../engine/validate.js';
import { type AnalyzeOptions, analyzeFlow, type FlowAnalysis, type FlowPath, flowPaths } from './analysis.js';
import type {
  FlowDefinition,
  HumanOptions,
  ListenOptions,
  RouterFn,
  RouterOptions,
  StateSource,
  StepDefinition,
  StepFn,
  StepOptions,
} from './definition.js';
import { leaseMsOf } from './flow-kickoff.js';
import { claimFlowRun, forkInputs, type HumanAnswerInput, storedRunOf, storeFor } from './flow-resume.js';
import { type FlowOutput, type FlowRun, type FlowRunOptions, startFlowRun } from './flow-run.js';
import type { FlowRunSeed } from './flow-run-parts.js';
import { loadSnapshot } from './flow-store.js';
import { flowToMachine, flowToMermaid } from './picture.js';
import { type FlowRunInfo, runInfo } from './snapshot.js';
import type { WithId } from './state.js';
import { PLAIN_STEP, type StepSettings, stepSettings } from './step-options.js';
import { createFlowSupervisor, type FlowSupervisor } from './supervisor.js';
import { namesIn, type Trigger } from './triggers.js';

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
  #supervisor: FlowSupervisor | undefined;
  /** Where runs are kept, unless a kickoff names another store. */
  readonly store: Store | undefined;
  /** How long a run's lease lasts without renewal, in ms, unless a kickoff says otherwise. */
  readonly leaseMs: number | undefined;

  constructor(name: string, state: StateSource<S>, store?: Store, leaseMs?: number) {
    requiredText('createFlow', 'name', name);
    checkStore('createFlow', store);
    optionalInteger('createFlow', 'leaseMs', leaseMs, 10);
    this.name = name;
    this.#state = state;
    this.store = store;
    this.leaseMs = leaseMs;
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
   * label (listeners of the label get `{ route, feedback }` as payload). Needs a store.
   */
  human<const R extends string>(
    name: string,
    trigger: Trigger,
    options: HumanOptions<NoInfer<R>, WithId<S>>,
  ): this {
    const routes = (options as Partial<HumanOptions<R>> | undefined)?.routes;
    if (!Array.isArray(routes) || routes.length === 0) throw new MissingRoutesError(this.name, name);
    const prompt = options.prompt;
    if (prompt !== undefined && typeof prompt !== 'string' && typeof prompt !== 'function') {
      throw new InvalidOptionError(
        `Flow "${this.name}" step "${name}"`,
        'prompt',
        'a string or a function',
        prompt,
      );
    }
    const answered = () => {
      throw new InternalError('Flow.human', `Human step "${name}" is answered through resume`);
    };
    this.#add(name, 'human', trigger, answered, routes, PLAIN_STEP);
    const step = this.#steps.at(-1) as StepDefinition<WithId<S>>;
    step.prompt = prompt as StepDefinition<WithId<S>>['prompt'];
    return this;
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
  run(options: FlowRunOptions = {}): FlowRun<WithId<S>> {
    checkOptionKeys(`Flow "${this.name}" run`, options, FLOW_RUN_OPTIONS);
    if (options.from !== undefined) {
      throw new InvalidOptionError(
        `Flow "${this.name}" run`,
        'from',
        'used with kickoff (a fork reads the store first)',
        options.from,
      );
    }
    return this.#start(options);
  }

  /**
   * Runs the flow to the end: `run(options).result`. With `from`, forks that stored run: a new run
   * starting from its stored state, `inputs` merged over it.
   */
  async kickoff(options: FlowRunOptions = {}): Promise<FlowOutput<WithId<S>>> {
    checkOptionKeys(`Flow "${this.name}" kickoff`, options, FLOW_RUN_OPTIONS);
    if (options.from === undefined) return this.run(options).result;
    const definition = this.definition as FlowDefinition<unknown>;
    const store = storeFor(definition, options.store, 'fork a run');
    const source = await storedRunOf(definition, store, options.from, 'fork');
    const { from: _from, ...rest } = options;
    return this.#start({ ...rest, store, inputs: forkInputs(source, options.inputs) }).result;
  }

  /**
   * Goes on with a stored run, in this or any process, with any definition object of this flow:
   * a run whose process died (or that was aborted) continues — the steps that were in flight run
   * again; a failed run runs its failed steps again, then goes on; a completed run returns its stored
   * result and runs nothing. The result covers the whole run; `totalTimeMs` this segment only. The run
   * is claimed first: `run_locked` while another owner runs it; of two answers to one paused run at
   * once, exactly one goes on.
   */
  async resume(
    id: string,
    answer?: HumanAnswerInput,
    options: FlowResumeOptions<WithId<S>> = {},
  ): Promise<FlowOutput<WithId<S>>> {
    checkOptionKeys(`Flow "${this.name}" resume`, options, FLOW_RESUME_OPTIONS);
    const definition = this.definition as FlowDefinition<unknown>;
    const store = storeFor(definition, options.store, 'resume a run');
    const clock = toClock(options.clock);
    const owner = new RunOwner(store, id, leaseMsOf(definition, options), clock);
    const claim = await claimFlowRun(definition, owner, clock, answer);
    if (claim.kind === 'completed') return claim.output as FlowOutput<WithId<S>>;
    try {
      const { snapshot, inputs } = claim;
      const seed: FlowRunSeed = { owner, resume: snapshot, answer: claim.answer };
      const { onRun, ...runOptions } = options;
      const run = this.#start({ ...runOptions, store, inputs }, seed);
      onRun?.(run);
      return await run.result;
    } catch (error) {
      // A run that never started (a definition error) gives its claim back.
      await owner.releaseQuietly();
      throw error;
    }
  }

  /** What the store holds of run `id` (undefined when nothing); `store_required` without a store. */
  async getRun(id: string, options: { store?: Store | undefined } = {}): Promise<FlowRunInfo | undefined> {
    const definition = this.definition as FlowDefinition<unknown>;
    const snapshot = await loadSnapshot(storeFor(definition, options.store, 'read a run'), id);
    return snapshot === undefined ? undefined : runInfo(snapshot);
  }

  #start(options: FlowRunOptions, seed?: FlowRunSeed): FlowRun<WithId<S>> {
    const definition = this.definition;
    this.#supervisor ??= createFlowSupervisor(definition);
    return startFlowRun(definition, options, this.#supervisor, seed);
  }

  #add(
    name: string,
    kind: StepDefinition<S>['kind'],
    trigger: Trigger | undefined,
    fn: unknown,
    routes: readonly string[] | undefined,
    settings: StepSettings,
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
    for (const label of routes ?? []) {
      requiredText(where, 'route label', label);
      if (label === name || this.#stepNames.has(label)) throw new NameClashError(this.name, label, name);
    }
    if (routes !== undefined && new Set(routes).size !== routes.length) {
      throw new InvalidOptionError(where, 'routes', 'distinct labels', routes);
    }
    this.#stepNames.add(name);
    this.#supervisor = undefined;
    for (const label of routes ?? []) this.#labels.set(label, name);
    this.#steps.push({
      name,
      index: this.#steps.length,
      kind,
      trigger,
      routes,
      ...settings,
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

/** Options of {@link Flow.resume}: a run's options, and who hears of the run once it started. */
export interface FlowResumeOptions<S> extends Omit<FlowRunOptions, 'inputs' | 'from'> {
  /**
   * Called with the resumed run as soon as it was claimed and created (before it starts): subscribe
   * to its `events$` there to see every event. Not called for a completed run, which runs nothing.
   */
  onRun?: ((run: FlowRun<S>) => void) | undefined;
}

/** Options of {@link createFlow} with a free state object. */
export interface FreeFlowOptions<S extends object> {
  name: string;
  /** Copied (deeply) for every run. */
  initialState: S;
  /** Where runs are kept (snapshots after every step); a kickoff may name another. */
  store?: Store | undefined;
  /** How long a run's lease in its store lasts without renewal, in ms. @default 15000 */
  leaseMs?: number | undefined;
}

/** Options of {@link createFlow} with a schema-checked state. */
export interface StructuredFlowOptions<Z extends ZodType> {
  name: string;
  /** Where runs are kept (snapshots after every step); a kickoff may name another. */
  store?: Store | undefined;
  /** Validates the inputs (`invalid_inputs`) and the state after every step (`invalid_state`). */
  state: Z;
  /** How long a run's lease in its store lasts without renewal, in ms. @default 15000 */
  leaseMs?: number | undefined;
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
  checkOptionKeys('createFlow', options, FLOW_OPTIONS);
  if ('state' in options && options.state !== undefined) {
    return new Flow(options.name, { kind: 'schema', schema: options.state }, options.store, options.leaseMs);
  }
  const initial = (options as FreeFlowOptions<object>).initialState ?? {};
  if (typeof initial !== 'object' || initial === null || Array.isArray(initial)) {
    throw new InvalidOptionError('createFlow', 'initialState', 'an object', initial);
  }
  const { store, leaseMs } = options as FreeFlowOptions<object>;
  return new Flow(options.name, { kind: 'free', initial }, store, leaseMs);
}
