import type { Observable } from 'rxjs';
import { FlowExistsError, InvalidInputsError, InvalidStateError } from '../../errors.js';
import type { PendingStep, SnapshotRound } from '../../machines/flow/waits.js';
import type { JsonValue } from '../../stores/store.js';
import type { StatecrewEvent } from '../../types.js';
import { RUN_KEY } from '../crew/crew-store.js';
import { encodeAt } from '../durable/codec.js';
import type { RunOwner } from '../durable/run-owner.js';
import type { Clock } from '../engine/clock.js';
import { type FlowRunHeader, FlowRunWriter } from './flow-store.js';
import type { FlowRecorder } from './recorder.js';
import { FLOW_SNAPSHOT_VERSION, type FlowRunStatus } from './snapshot.js';

/** What a flow run's keeper reads of its run. */
export interface FlowKeeperParts {
  flow: string;
  id: string;
  clock: Clock;
  recorder: FlowRecorder;
  /** The run's live state. */
  state: unknown;
  inputs: Readonly<Record<string, unknown>>;
  /** The human and wait steps the run waits for. */
  waiting(): PendingStep[];
  /**
   * Where a resumed run's records stand: the highest mark, the version its unmarked records are in,
   * and the wake times of its sleep step runs.
   */
  stored?:
    | { mark: number; origin: number; status: FlowRunStatus; sleeps?: Record<string, number> }
    | undefined;
  /** Stops the run with `error`: a commit failed, or the lease was lost. */
  halt(error: unknown): void;
  /** The run's events: kept in the store when the run keeps them. */
  events$: Observable<StatecrewEvent>;
}

/** A step run's values in their stored form, made when the step finished. */
interface StepValues {
  state: JsonValue;
  output: JsonValue;
}

/**
 * Keeps one flow run in its store through the run's owner: the claim and first header, each
 * supervisor transition's records as one fenced commit (a step run, the header, the round it ended),
 * the last header with the run's status (releasing the lease), and the run's values in the codec's
 * form — encoded when a step finishes, so a value no store can keep fails that step (`invalid_state`,
 * naming its path) before anything of it is written.
 */
export class FlowKeeper {
  readonly #writer: FlowRunWriter;
  readonly #inputs: JsonValue;
  /** The state as the last completed step left it: a failed or aborted run is stored with it. */
  #settledState: JsonValue;
  readonly #stepValues = new Map<string, StepValues>();
  /** The version of a resumed run's unmarked records, when older than this one's. */
  readonly #origin: number | undefined;
  /** The wake time of each sleep step run that started, by node id. */
  readonly #sleeps: Record<string, number>;
  /** Whether the run's first header landed: from then on the store holds this owner's run. */
  #started = false;

  constructor(
    private readonly owner: RunOwner,
    private readonly parts: FlowKeeperParts,
  ) {
    this.#writer = new FlowRunWriter(owner, parts.stored?.mark);
    this.#inputs = encodeAt(parts.inputs, 'inputs', (path, reason) =>
      InvalidInputsError.unstorable(`Flow "${parts.flow}" kickoff`, path, reason),
    );
    this.#settledState = encodeAt(parts.state, 'state', (path, reason) =>
      InvalidStateError.unstorable('(the initial state)', path, reason),
    );
    this.#sleeps = { ...(parts.stored?.sleeps ?? {}) };
    const origin = parts.stored?.origin;
    this.#origin = origin !== undefined && origin < FLOW_SNAPSHOT_VERSION ? origin : undefined;
  }

  /** What the run's head keeps besides its status: the inputs it started with. */
  get headData(): JsonValue {
    return { inputs: this.#inputs, ...(this.owner.keepEvents ? { events: 'store' } : {}) };
  }

  /** Claims a new run's id (`flow_exists` when a run holds it), writes its first header, starts the heartbeat. */
  async claimNew(): Promise<void> {
    const { store } = this.owner;
    const { flow, id } = this.parts;
    // A run stored before run heads existed has only its header.
    const exists = async () => (await store.get('flow_runs', id, RUN_KEY)) !== undefined;
    if ((await exists()) || !(await this.owner.create('flow', flow, this.headData))) {
      throw new FlowExistsError(flow, id);
    }
    await this.start();
  }

  /** Writes the first header of a run this owner holds, and starts the heartbeat. */
  async start(): Promise<void> {
    this.owner.journal?.listen(this.parts.events$);
    this.#writer.header(this.#header('running'));
    await this.#writer.commit();
    if (this.#writer.failure !== undefined) throw this.#writer.failure;
    this.#started = true;
    this.owner.startHeartbeat((lost) => this.parts.halt(lost));
  }

  /** Encodes what step run `nodeId` of `step` left (state and output); throws `invalid_state` naming the path. */
  encodeStep(nodeId: string, step: string, output: unknown): void {
    const refuse = (path: string, reason: string) => InvalidStateError.unstorable(step, path, reason);
    this.#stepValues.set(nodeId, {
      state: encodeAt(this.parts.state, 'state', refuse),
      output: encodeAt(output, `outputs.${step}`, refuse),
    });
  }

  /**
   * Stages a step run that settled: a completed one's record, carrying the state it left (the header
   * stays as it is); the header, with the run's errors, when it failed.
   */
  stepSettled(completed: { nodeId: string; step: string; run: number; round: number } | undefined): void {
    const values = completed && this.#stepValues.get(completed.nodeId);
    if (completed === undefined || values === undefined) {
      this.#writer.header(this.#header('running'));
      return;
    }
    this.#stepValues.delete(completed.nodeId);
    this.#settledState = values.state;
    const at = this.parts.clock.now();
    this.#writer.step({ ...completed, output: values.output, state: values.state, at });
  }

  /**
   * Stores the wake time of sleep step run `nodeId` (in the header, committed now): a run that goes on
   * after its process died sleeps until then. Rejects when the write failed (the run is halted too).
   */
  async noteWake(nodeId: string, wakeAt: number): Promise<void> {
    this.#sleeps[nodeId] = wakeAt;
    this.#writer.header(this.#header('running'));
    await this.#writer.commit({}, (error) => this.parts.halt(error));
    if (this.#writer.failure !== undefined) throw this.#writer.failure;
  }

  /** Stages a completed round. */
  roundCompleted(n: number, round: SnapshotRound): void {
    this.#writer.round(n, round);
  }

  /** Commits what a supervisor transition staged, if anything; `hold` keeps the run from starting more meanwhile. */
  afterTransition(hold: (commit: Promise<void>) => void): void {
    if (this.#writer.staged) hold(this.#writer.commit({}, (error) => this.parts.halt(error)));
  }

  /** Hears the run's last event before its end is written: a run that keeps its events writes it then. */
  closing(event: StatecrewEvent): void {
    this.owner.journal?.close(event);
  }

  /** Writes the last header with the run's status and gives the lease up; rejects when that failed. */
  async finish(status: FlowRunStatus): Promise<void> {
    this.#writer.header(this.#header(status));
    await this.#writer.commit({ status, release: true });
    if (this.#writer.failure !== undefined) throw this.#writer.failure;
  }

  /**
   * Gives the lease up in the background if the run ends without `finish` (a failure); never rejects.
   * A stored run whose first header never landed goes back to the status it had (a paused run stays
   * paused, and takes its answer or signal again).
   */
  end(): void {
    void this.owner.releaseQuietly(this.#started ? undefined : this.parts.stored?.status);
  }

  #header(status: FlowRunStatus): FlowRunHeader {
    const { recorder, flow, id, clock } = this.parts;
    return {
      version: FLOW_SNAPSHOT_VERSION,
      flow,
      id,
      status,
      state: this.#settledState,
      inputs: this.#inputs,
      pending: this.parts.waiting().map((w) => ({ ...w, payload: this.#payload(w) })),
      errors: { ...recorder.errors },
      failures: { ...recorder.failures },
      ...(Object.keys(this.#sleeps).length === 0 ? {} : { sleeps: { ...this.#sleeps } }),
      updatedAt: clock.now(),
      ...(this.#origin === undefined ? {} : { origin: this.#origin }),
    };
  }

  /** A waiting step's payload: the output of the step that triggered it, or a label. */
  #payload(waiting: PendingStep): JsonValue {
    return encodeAt(waiting.payload, `pending.${waiting.step}.payload`, (path, reason) =>
      InvalidStateError.unstorable(waiting.step, path, reason),
    );
  }
}
