import type { Observable } from 'rxjs';
import type { ZodType } from 'zod';
import { InvalidOptionError, UnknownDefinitionError } from '../errors.js';
import type { StepShape } from '../machines/flow/step-shape.js';
import type { Crew } from '../runtime/crew/crew.js';
import type { RecoverableFlow, RecoveryOptions } from '../runtime/durable/runner-options.js';
import type { ScheduledKickoff } from '../runtime/durable/schedules.js';
import type { PlainMachine } from '../runtime/engine/plain-machine.js';
import type { CrewAnswerInput } from '../runtime/flow/crew-steps.js';
import type { HumanAnswerInput } from '../runtime/flow/flow-resume.js';
import type { Store } from '../stores/store.js';
import type { StatecrewEvent } from '../types.js';

/** A run as it starts: its id, its events and its end. */
export interface StartedRun {
  id: string;
  events$: Observable<StatecrewEvent>;
  result: Promise<unknown>;
}

/** What the server passes a flow's `resume` and `signal`. */
export interface ServedResumeOptions {
  store: Store;
  signal: AbortSignal;
  onRun: (run: StartedRun) => void;
  /** Runs served keep their events, so `/runs/:id/events` can replay them. */
  events: 'store';
}

/** What the server passes a flow's `fork`: where and what to edit, and how the fork is tracked. */
export interface ServedForkOptions extends ServedResumeOptions {
  at: string | number;
  state?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
  id?: string;
}

/**
 * What serving a flow over HTTP needs of it: any `createFlow(...)` result, whatever its state type
 * (a `Flow<S>` is not a `Flow<object>`: its steps read `S`).
 */
export interface ServedFlow extends RecoverableFlow {
  readonly name: string;
  readonly definition: {
    readonly steps: readonly StepShape[];
    readonly state: { kind: 'free'; initial: object } | { kind: 'schema'; schema: ZodType };
  };
  run(options: {
    inputs: Record<string, unknown>;
    store: Store;
    signal: AbortSignal;
    events: 'store';
  }): StartedRun;
  /** What a run on a thread starts with (`run` takes no thread: the thread's last run is read first). */
  kickoff(options: {
    inputs: Record<string, unknown>;
    store: Store;
    signal: AbortSignal;
    events: 'store';
    thread: string;
  }): Promise<unknown>;
  /** What a runner's schedules call: the flow is also a {@link RecoverableFlow}. */
  kickoff(options: ScheduledKickoff): Promise<unknown>;
  resume(
    id: string,
    answer: HumanAnswerInput | CrewAnswerInput | undefined,
    options: ServedResumeOptions,
  ): Promise<unknown>;
  /** What a runner calls: the flow is also a {@link RecoverableFlow}. */
  resume(id: string, answer: undefined, options: RecoveryOptions): Promise<unknown>;
  signal(id: string, event: string, payload: unknown, options: ServedResumeOptions): Promise<unknown>;
  /** Forks stored run `id` at a checkpoint, with a state patch, outputs or inputs edited. */
  fork(id: string, options: ServedForkOptions): Promise<unknown>;
  toMermaid(): string;
  toMachine(): PlainMachine;
}

/** Served definitions: a list, or a record whose keys are the definitions' own names. */
export type ServedList<T> = readonly T[] | Readonly<Record<string, T>>;

/** One served definition. */
export type ServedDefinition =
  | { kind: 'crew'; name: string; crew: Crew }
  | { kind: 'flow'; name: string; flow: ServedFlow };

const WHERE = 'createServer';

const isCrewLike = (value: unknown): value is Crew =>
  typeof (value as Crew | null)?.run === 'function' &&
  typeof (value as Crew).resume === 'function' &&
  Array.isArray((value as Crew).tasks);

const isFlowLike = (value: unknown): value is ServedFlow =>
  typeof (value as ServedFlow | null)?.run === 'function' &&
  typeof (value as ServedFlow).signal === 'function' &&
  typeof (value as ServedFlow).definition?.steps === 'object';

/** The entries of a list or record option, each with where it sits (`crews[0]`, `crews.research`). */
function entriesOf<T>(option: string, given: ServedList<T> | undefined): [string, T, string | undefined][] {
  if (given === undefined) return [];
  if (Array.isArray(given)) return given.map((value, i) => [`${option}[${i}]`, value, undefined]);
  if (typeof given !== 'object' || given === null) {
    throw new InvalidOptionError(WHERE, option, 'a list, or a record by name', given);
  }
  return Object.entries(given).map(([key, value]) => [`${option}.${key}`, value as T, key]);
}

/**
 * The served crews and flows by name. Runs are found again by the name their store keeps (the
 * definition's own), so a record's key must be that name and two definitions cannot share one.
 */
export class Catalog {
  readonly #byName = new Map<string, ServedDefinition>();

  constructor(crews: ServedList<Crew> | undefined, flows: ServedList<ServedFlow> | undefined) {
    for (const [at, crew, key] of entriesOf('crews', crews)) {
      if (!isCrewLike(crew)) throw new InvalidOptionError(WHERE, at, 'a Crew', crew);
      this.#add(at, key, { kind: 'crew', name: crew.name, crew });
    }
    for (const [at, flow, key] of entriesOf('flows', flows)) {
      if (!isFlowLike(flow)) throw new InvalidOptionError(WHERE, at, 'a flow (createFlow)', flow);
      this.#add(at, key, { kind: 'flow', name: flow.name, flow });
    }
  }

  #add(at: string, key: string | undefined, served: ServedDefinition): void {
    if (key !== undefined && key !== served.name) {
      throw new InvalidOptionError(WHERE, at, `a definition named "${key}"`, served.name, {
        message: `${WHERE}: ${at} is named "${served.name}": stored runs are found by that name, so key it "${served.name}" (or name it "${key}")`,
      });
    }
    if (this.#byName.has(served.name)) {
      throw new InvalidOptionError(WHERE, at, 'a name no other served definition has', served.name, {
        message: `${WHERE}: ${at} is named "${served.name}" like another served definition: stored runs are found by name, rename one`,
      });
    }
    this.#byName.set(served.name, served);
  }

  /** Every served definition, crews first, in the order given. */
  list(): ServedDefinition[] {
    return [...this.#byName.values()];
  }

  /** The definition named `name`; `unknown_definition` when none is served. */
  get(name: string): ServedDefinition {
    const found = this.#byName.get(name);
    if (found === undefined) throw new UnknownDefinitionError(name, [...this.#byName.keys()], 'This server');
    return found;
  }

  /** The crews, for a runner. */
  crews(): Crew[] {
    return this.list().flatMap((d) => (d.kind === 'crew' ? [d.crew] : []));
  }

  /** The flows, for a runner. */
  flows(): ServedFlow[] {
    return this.list().flatMap((d) => (d.kind === 'flow' ? [d.flow] : []));
  }
}
