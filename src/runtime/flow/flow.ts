import type { ZodType, z } from 'zod';
import {
  DuplicateStepError,
  InvalidOptionError,
  MissingRoutesError,
  NameClashError,
  SelfTriggerError,
} from '../../errors.js';
import type { PlainMachine } from '../plain-machine.js';
import { requiredText } from '../validate.js';
import { type AnalyzeOptions, analyzeFlow, type FlowAnalysis, type FlowPath, flowPaths } from './analysis.js';
import type {
  FlowDefinition,
  ListenOptions,
  RouterFn,
  RouterOptions,
  StateSource,
  StepDefinition,
  StepFn,
} from './definition.js';
import { type FlowOutput, type FlowRun, type FlowRunOptions, startFlowRun } from './flow-run.js';
import { flowToMachine, flowToMermaid } from './picture.js';
import type { WithId } from './state.js';
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

  constructor(name: string, state: StateSource<S>) {
    requiredText('createFlow', 'name', name);
    this.name = name;
    this.#state = state;
  }

  /** Adds a step that runs first, in round 1. */
  start(name: string, fn: StepFn<WithId<S>>): this {
    return this.#add(name, 'start', undefined, fn, undefined, undefined);
  }

  /** Adds a step that runs when `trigger` is satisfied; `maxRuns` lets it run again on new emissions. */
  listen(name: string, trigger: Trigger, fn: StepFn<WithId<S>>, options: ListenOptions = {}): this {
    return this.#add(name, 'listen', trigger, fn, undefined, options.maxRuns);
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
    return this.#add(name, 'router', trigger, fn, routes, options.maxRuns);
  }

  /** The definition as the runtime reads it. */
  get definition(): FlowDefinition<WithId<S>> {
    return { name: this.name, steps: [...this.#steps], state: this.#state as StateSource<WithId<S>> };
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
    const definition = this.definition;
    this.#supervisor ??= createFlowSupervisor(definition);
    return startFlowRun(definition, options, this.#supervisor);
  }

  /** Runs the flow to the end: `run(options).result`. */
  async kickoff(options: FlowRunOptions = {}): Promise<FlowOutput<WithId<S>>> {
    return this.run(options).result;
  }

  #add(
    name: string,
    kind: StepDefinition<S>['kind'],
    trigger: Trigger | undefined,
    fn: unknown,
    routes: readonly string[] | undefined,
    maxRuns: number | undefined,
  ): this {
    const where = `Flow "${this.name}" step "${String(name)}"`;
    requiredText(`Flow "${this.name}"`, 'step name', name);
    if (typeof fn !== 'function') throw new InvalidOptionError(where, 'fn', 'a function', fn);
    if (this.#stepNames.has(name)) throw new DuplicateStepError(this.name, name);
    const router = this.#labels.get(name);
    if (router !== undefined) throw new NameClashError(this.name, name, router);
    if (trigger !== undefined) {
      checkTrigger(where, trigger);
      if (namesIn(trigger).has(name)) throw new SelfTriggerError(this.name, name);
    }
    if (
      maxRuns !== undefined &&
      !(maxRuns === Number.POSITIVE_INFINITY || (Number.isInteger(maxRuns) && maxRuns >= 1))
    ) {
      throw new InvalidOptionError(where, 'maxRuns', 'an integer ≥ 1 or Infinity', maxRuns);
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
      maxRuns,
      run: fn as StepFn<WithId<S>>,
    });
    return this;
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

/** Options of {@link createFlow} with a free state object. */
export interface FreeFlowOptions<S extends object> {
  name: string;
  /** Copied (deeply) for every run. */
  initialState: S;
}

/** Options of {@link createFlow} with a schema-checked state. */
export interface StructuredFlowOptions<Z extends ZodType> {
  name: string;
  /** Validates the inputs (`invalid_inputs`) and the state after every step (`invalid_state`). */
  state: Z;
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
  if ('state' in options && options.state !== undefined) {
    return new Flow(options.name, { kind: 'schema', schema: options.state });
  }
  const initial = (options as FreeFlowOptions<object>).initialState ?? {};
  if (typeof initial !== 'object' || initial === null || Array.isArray(initial)) {
    throw new InvalidOptionError('createFlow', 'initialState', 'an object', initial);
  }
  return new Flow(options.name, { kind: 'free', initial });
}
