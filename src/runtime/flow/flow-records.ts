import { InvalidInputsError, InvalidStateError } from '../../errors.js';
import type { PendingStep, SnapshotRound } from '../../machines/flow/waits.js';
import type { JsonValue } from '../../stores/store.js';
import { encodeAt } from '../durable/codec.js';
import type { Clock } from '../engine/clock.js';
import type { RunCommits } from '../run/run-commits.js';
import { type FlowRunHeader, FlowRunWriter } from './flow-store.js';
import type { FlowRecorder } from './recorder.js';
import { FLOW_SNAPSHOT_VERSION, type FlowRunStatus } from './snapshot.js';

/** What a flow run's records read of its run. */
export interface FlowRecordsParts {
  flow: string;
  id: string;
  clock: Clock;
  recorder: FlowRecorder;
  /** The run's live state. */
  state: unknown;
  /** The inputs it started with, in their stored form (see {@link storedInputs}). */
  inputs: JsonValue;
  /** The human and wait steps the run waits for. */
  waiting(): PendingStep[];
  /**
   * Where a resumed run's records stand: the highest mark, the version its unmarked records are in,
   * and the wake times of its sleep step runs.
   */
  stored?: { mark: number; status: FlowRunStatus; sleeps?: Record<string, number> } | undefined;
}

/** A step run's values in their stored form, made when the step finished. */
interface StepValues {
  state: JsonValue;
  output: JsonValue;
}

/**
 * What a flow run writes, on its run's commit path: its first header, each supervisor transition's
 * records (a step run, the header, the round it ended), the last header with the run's status
 * (releasing the lease), and the run's values in the codec's form — encoded when a step finishes, so a
 * value no store can keep fails that step (`invalid_state`, naming its path) before anything of it is
 * written.
 */
export class FlowRecords {
  readonly #writer: FlowRunWriter;
  readonly #inputs: JsonValue;
  /** The state as the last completed step left it: a failed or aborted run is stored with it. */
  #settledState: JsonValue;
  readonly #stepValues = new Map<string, StepValues>();
  /** The wake time of each sleep step run that started, by node id. */
  readonly #sleeps: Record<string, number>;

  constructor(
    commits: RunCommits,
    private readonly parts: FlowRecordsParts,
  ) {
    this.#writer = new FlowRunWriter(commits, parts.stored?.mark);
    this.#inputs = parts.inputs;
    this.#settledState = encodeAt(parts.state, 'state', (path, reason) =>
      InvalidStateError.unstorable('(the initial state)', path, reason),
    );
    this.#sleeps = { ...(parts.stored?.sleeps ?? {}) };
  }

  /** Stages the first header of a run its owner holds now (the run writes it before anything runs). */
  first(): void {
    this.#writer.header(this.#header('running'));
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
    await this.#writer.commits.commitLast({});
  }

  /** Stages a completed round. */
  roundCompleted(n: number, round: SnapshotRound): void {
    this.#writer.round(n, round);
  }

  /** Writes the last header with the run's status and gives the lease up; rejects when that failed. */
  async finish(status: FlowRunStatus): Promise<void> {
    this.#writer.header(this.#header(status));
    await this.#writer.commits.commitLast({ status, release: true });
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
    };
  }

  /** A waiting step's payload: the output of the step that triggered it, or a label. */
  #payload(waiting: PendingStep): JsonValue {
    return encodeAt(waiting.payload, `pending.${waiting.step}.payload`, (path, reason) =>
      InvalidStateError.unstorable(waiting.step, path, reason),
    );
  }
}

/** A flow run's inputs in their stored form; `invalid_inputs` naming the path of what no store keeps. */
export function storedInputs(flow: string, inputs: Readonly<Record<string, unknown>>): JsonValue {
  return encodeAt(inputs, 'inputs', (path, reason) =>
    InvalidInputsError.unstorable(`Flow "${flow}" kickoff`, path, reason),
  );
}
