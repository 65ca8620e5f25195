import type { ZodType } from 'zod';
import type { StepShape } from '../../machines/flow/step-shape.js';
import type { Store } from '../../stores/store.js';
import type { CrewOutput, MemoryEntry } from '../../types.js';
import type { ChildDefinition } from '../run/child-run.js';
import type { HumanPromptContext, SleepOptions } from './step-options.js';

export type {
  HumanOptions,
  HumanPromptContext,
  ListenOptions,
  RouterOptions,
  SleepOptions,
  StepOptions,
  WaitOptions,
} from './step-options.js';

/** What a flow step gets. */
export interface StepContext<S> {
  /** The run's state; steps mutate it. */
  state: S;
  /** The triggering step's return value; for a route label trigger, the label. */
  payload: unknown;
  /** The run's inputs. */
  inputs: Readonly<Record<string, unknown>>;
  /** Every completed step's latest output, by step name (read-only). */
  outputs: Readonly<Record<string, unknown>>;
  /** The state's id. */
  flowId: string;
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
  /**
   * The same for every execution of this step run — each attempt of it, and a run again by another
   * process after a takeover or a crash — and different for any other step run (another step, another
   * run of the step, another flow run): `<run id>:<node id>`. A step runs at least once, so give it to
   * the services it changes (a payment's idempotency key, a unique row) to make their effect happen once.
   */
  idempotencyKey: string;
  /**
   * Runs a crew (any `Crew`) as a child actor of this step; its events join the flow's, tagged with
   * the step. A crew that pauses for a human makes the step wait, and the flow pause.
   */
  kickoff(crew: ChildDefinition<CrewOutput>, options?: StepKickoffOptions): Promise<CrewOutput>;
  /**
   * The execution memory of this run's crews: every task run that a crew kicked off from a step of
   * this run (in this process) completed, in completion order.
   */
  results(): MemoryEntry[];
}

/** Options of a step's `kickoff`: the crew run's inputs, and its execution id. */
export interface StepKickoffOptions {
  inputs?: Record<string, unknown> | undefined;
  /** @default an id derived from the flow run, the step run and the kickoff's number in it */
  executionId?: string | undefined;
}

/** A step's body. */
export type StepFn<S> = (context: StepContext<S>) => unknown;

/** A router's body: returns one of its route labels. */
export type RouterFn<S, R extends string> = (context: StepContext<S>) => R | Promise<R>;

/** One step of a flow definition: its shape, and its body. */
export interface StepDefinition<S> extends StepShape {
  run: StepFn<S>;
  /** What a human step asks (a human step only). */
  prompt?: string | ((context: HumanPromptContext<S>) => string) | undefined;
  /** How long a sleep step sleeps: `ms` from when it starts, or `until` a time of the run (a sleep step only). */
  sleep?: SleepOptions<S> | undefined;
}

/** A step without its body, with what it asks and how long it sleeps: what pictures of a flow read. */
export type StepDetails = Omit<StepDefinition<never>, 'run'>;

/** How a flow's state is made and checked. */
export type StateSource<S> = { kind: 'free'; initial: S } | { kind: 'schema'; schema: ZodType };

/** A flow definition as the runtime reads it. */
export interface FlowDefinition<S> {
  name: string;
  steps: readonly StepDefinition<S>[];
  state: StateSource<S>;
  /** Where its runs are kept, unless a kickoff names another. */
  store?: Store | undefined;
  /** How long a run's lease lasts without renewal, in ms, unless a kickoff says otherwise. */
  leaseMs?: number | undefined;
}
