import type { RecoveryOptions } from '../runtime/durable/runner-options.js';
import type { Store } from '../stores/store.js';

/** How a whole run ended, as far as the queue reads it: its status and its output. */
export interface RunEnd {
  /** `completed`, `failed`, or (a flow waiting for a human) `paused`. */
  status: string;
  output: unknown;
}

/** Where a run the queue starts or resumes is kept: the worker's store, else the definition's own. */
export interface RunStoreOption {
  store?: Store;
}

/** What the queue passes a run it starts or resumes: where it is kept, and whether it keeps its events. */
export interface QueuedRunOptions extends RunStoreOption {
  /** `'store'` when the job asks the run to keep its events in its store. */
  events?: 'store';
  /** The job's signal: aborted when its job is cancelled (a `cancelRun` elsewhere asked for it). */
  signal?: AbortSignal;
}

/**
 * What the queue needs of a crew (any `Crew`) to run it whole on a worker: its name and store, a
 * kickoff under the job's id, and `resume` — the worker's, when the run is already stored, and its
 * runner's, when the run's process died.
 */
export interface QueueableCrew {
  readonly name: string;
  readonly store: Store | undefined;
  kickoff(
    options: { executionId: string; inputs: Record<string, unknown> } & QueuedRunOptions,
  ): Promise<RunEnd>;
  resume(executionId: string, options: QueuedRunOptions | RecoveryOptions): Promise<RunEnd>;
}

/**
 * What the queue needs of a flow (any `Flow`, whatever its state) to run it whole on a worker: as a
 * {@link QueueableCrew} (the job's id is `inputs.id`), and `getRun`, which tells a flow from a crew.
 */
export interface QueueableFlow {
  readonly name: string;
  readonly store: Store | undefined;
  kickoff(options: { inputs: Record<string, unknown> } & QueuedRunOptions): Promise<RunEnd>;
  resume(id: string, answer: undefined, options: QueuedRunOptions | RecoveryOptions): Promise<RunEnd>;
  getRun(id: string, options?: RunStoreOption): Promise<unknown>;
  /** When the first waiting step of a paused run times out: the worker's runner goes on with it then. */
  nextDeadline(id: string, store: Store): Promise<number | undefined>;
}

/** Crews and flows a worker can run whole, by the name a submitted run gives. */
export type RunDefinitions = Readonly<Record<string, QueueableCrew | QueueableFlow>>;

/** Whether a definition is a flow (it reads its stored runs) rather than a crew. */
export const isFlow = (definition: QueueableCrew | QueueableFlow): definition is QueueableFlow =>
  typeof (definition as QueueableFlow).getRun === 'function';
