import { CorruptSnapshotError, SnapshotVersionError } from '../../errors.js';
import type { PendingStep, SnapshotRound } from '../../machines/flow/waits.js';
import type { JsonValue, Store, StoredRecord } from '../../stores/store.js';
import type { Failure } from '../../types.js';
import { decodeRunValue } from '../durable/codec.js';
import { RUN_KEY } from '../durable/run-key.js';
import type { HeadChange } from '../durable/run-owner.js';
import type { RunCommits } from '../run/run-commits.js';
import {
  FLOW_SNAPSHOT_VERSION,
  type FlowRunStatus,
  type FlowSnapshot,
  type SnapshotStepRun,
} from './snapshot.js';

/**
 * How a flow run is laid out in `flow_runs` (all under the run's id), so that each step writes one
 * new record and never the whole run again:
 *   `run`           the header: status, state, inputs, pending human steps, errors — written when the
 *                   run starts or resumes, when a step fails, and when it pauses or ends
 *   `step:<nodeId>` a completed step run: its output, the round it ran in, the state it left and the
 *                   round its commit completed
 *   `round:<n>`     a completed round no step record carries
 * Every record carries a `mark`, numbered in the order the run wrote them: the state and time of the
 * run are those of its highest mark. `state`, `inputs`, every `output` and every pending `payload` are
 * in the run value codec's form (`encodeRunValue`).
 */
export interface FlowRunHeader {
  version: number;
  flow: string;
  id: string;
  status: FlowRunStatus;
  state: JsonValue;
  inputs: JsonValue;
  pending: (PendingStep & { payload: JsonValue })[];
  errors: Record<string, string>;
  failures: Record<string, Failure>;
  /** The wake time of each sleep step run that started, by node id (absent when none did). */
  sleeps?: Record<string, number>;
  updatedAt: number;
  /** Its place among the run's records. */
  mark?: number;
}

/** A completed round as a step record carries it: the round's number (from 1), its steps and emissions. */
export interface EndedRound extends SnapshotRound {
  n: number;
}

/** A completed step run as it is stored. */
export interface StoredStepRun extends SnapshotStepRun {
  /** The round it ran in, from 1. */
  round: number;
  output: JsonValue;
  /** The run's state once the step settled. */
  state?: JsonValue;
  /** Its place among the run's records, and when it was written. */
  mark?: number;
  at?: number;
  /** The round the commit of this record completed, if one did. */
  ended?: EndedRound;
}

/** A stored flow run's snapshot, as a run that goes on with it needs it. */
export interface StoredFlowSnapshot extends FlowSnapshot {
  /** The highest mark among its records: a resumed run's records go on from it. */
  mark: number;
}

const ROUND = 'round:';
const STEP = 'step:';

const corrupt = (id: string, key: string, why: string) => new CorruptSnapshotError('flow_runs', id, key, why);

/** Reads a flow run from `store` and puts its snapshot together; undefined when there is none. */
export async function loadSnapshot(store: Store, id: string): Promise<StoredFlowSnapshot | undefined> {
  return snapshotOf(id, await store.list('flow_runs', id));
}

/** What a snapshot reads of a stored record: its key and value. */
type RecordRead = Pick<StoredRecord, 'key' | 'value'>;

/**
 * Puts flow run `id`'s snapshot together from its `flow_runs` records (as `store.list` gives them, in
 * first-write order); undefined when they hold no header.
 */
export function snapshotOf(id: string, records: readonly RecordRead[]): StoredFlowSnapshot | undefined {
  const head = records.find((r) => r.key === RUN_KEY);
  if (head === undefined) return undefined;
  const header = head.value as unknown as Partial<FlowRunHeader> | null;
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    throw corrupt(id, RUN_KEY, 'not a flow run');
  }
  if (header.version !== FLOW_SNAPSHOT_VERSION) {
    throw new SnapshotVersionError(`Flow run ${id}`, header.version);
  }
  if (typeof header.flow !== 'string' || typeof header.status !== 'string') {
    throw corrupt(id, RUN_KEY, 'fields of a flow run are missing');
  }
  const decode = decoderOf(id);
  const steps = records.filter((r) => r.key.startsWith(STEP)).map((r) => stepOf(id, r));
  const rounds = roundsOf(id, records, steps);
  const outputs: Record<string, unknown> = {};
  for (const step of steps) outputs[step.step] = decode(`${STEP}${step.nodeId}`, step.output);
  const done = steps
    .filter((s) => s.round > rounds.length)
    .map(({ nodeId, step, run, timedOut }) => ({
      nodeId,
      step,
      run,
      ...(timedOut === true ? { timedOut } : {}),
    }));
  const doneSteps = new Set(done.map((d) => d.step));
  const { pending = [], sleeps = {}, state: _state, inputs, mark: _mark, ...rest } = header as FlowRunHeader;
  const latest = latestOf(header as FlowRunHeader, steps);
  return {
    ...rest,
    state: decode(latest.key, latest.state),
    updatedAt: latest.at,
    mark: latest.mark,
    inputs: decode(RUN_KEY, inputs),
    rounds,
    done,
    trail: [...rounds.flatMap((r) => r.steps), ...[...doneSteps]],
    outputs,
    emitted: rounds.flatMap((r) => r.emitted),
    pending: pending.map((p) => ({ ...p, payload: decode(RUN_KEY, p.payload) }) as PendingStep),
    sleeps,
  };
}

/**
 * The earliest deadline among the waiting steps of paused run `id`, read from its header alone;
 * undefined when none has one (or there is no such run).
 */
export async function earliestDeadline(store: Store, id: string): Promise<number | undefined> {
  const record = await store.get('flow_runs', id, RUN_KEY);
  const head = record?.value as Partial<FlowRunHeader> | undefined | null;
  let earliest: number | undefined;
  for (const pending of Array.isArray(head?.pending) ? head.pending : []) {
    const at = pending?.timeoutAt;
    if (typeof at === 'number' && (earliest === undefined || at < earliest)) earliest = at;
  }
  return earliest;
}

/** The record the run wrote last among its header and the step records that carry the state. */
function latestOf(
  header: FlowRunHeader,
  steps: readonly StoredStepRun[],
): { key: string; state: JsonValue; at: number; mark: number } {
  let latest = { key: RUN_KEY, state: header.state, at: header.updatedAt, mark: header.mark ?? 0 };
  for (const step of steps) {
    if (step.mark === undefined || step.state === undefined || step.mark <= latest.mark) continue;
    latest = { key: `${STEP}${step.nodeId}`, state: step.state, at: step.at ?? latest.at, mark: step.mark };
  }
  return latest;
}

/** How a snapshot's values read back: as the run value codec wrote them. */
function decoderOf(id: string): (key: string, value: JsonValue | undefined) => unknown {
  return (key, value) => {
    if (value === undefined) return undefined;
    try {
      return decodeRunValue(value);
    } catch (error) {
      throw corrupt(id, key, `a value the codec cannot read: ${(error as Error).message}`);
    }
  };
}

/** The completed rounds, in order: from `round:<n>` records and from the step records that carry one. */
function roundsOf(
  id: string,
  records: readonly RecordRead[],
  steps: readonly StoredStepRun[],
): SnapshotRound[] {
  const rounds: SnapshotRound[] = [];
  const add = (key: string, n: number, round: Partial<SnapshotRound> | undefined) => {
    if (!Number.isInteger(n) || n < 1 || !Array.isArray(round?.steps) || !Array.isArray(round?.emitted)) {
      throw corrupt(id, key, 'not a round');
    }
    rounds[n - 1] = { steps: round.steps, emitted: round.emitted };
  };
  for (const record of records) {
    if (!record.key.startsWith(ROUND)) continue;
    add(
      record.key,
      Number(record.key.slice(ROUND.length)),
      record.value as unknown as Partial<SnapshotRound>,
    );
  }
  for (const step of steps)
    if (step.ended !== undefined) add(`${STEP}${step.nodeId}`, step.ended.n, step.ended);
  for (let n = 0; n < rounds.length; n += 1) {
    if (rounds[n] === undefined) throw corrupt(id, `${ROUND}${n + 1}`, 'a round is missing');
  }
  return rounds;
}

function stepOf(id: string, record: RecordRead): StoredStepRun {
  const step = record.value as unknown as Partial<StoredStepRun>;
  if (typeof step?.step !== 'string' || typeof step.round !== 'number' || typeof step.nodeId !== 'string') {
    throw corrupt(id, record.key, 'not a step run');
  }
  if (step.mark !== undefined && typeof step.mark !== 'number')
    throw corrupt(id, record.key, 'its mark is not a number');
  if (step.ended !== undefined && (step.ended === null || typeof step.ended !== 'object')) {
    throw corrupt(id, record.key, 'not a round');
  }
  return step as StoredStepRun;
}

/**
 * Stages one flow run's records on the run's commit path, each with the next mark: what a supervisor
 * transition produced (a step run carrying the state it left and the round it ended; the header when
 * it changed) goes to the store as one fenced commit, in the order the records were made. The run
 * starts nothing more until that commit landed; a commit that failed, or that found the lease taken,
 * halts the run.
 */
export class FlowRunWriter {
  /** The step record staged last: a round completed in the same commit rides on it. */
  #lastStep: StoredStepRun | undefined;
  /** The mark of the record staged last (the run's earlier records hold marks up to the one it starts with). */
  #mark: number;

  constructor(
    readonly commits: RunCommits,
    startMark = 0,
  ) {
    this.#mark = startMark;
  }

  /** Stages the run's header (a header staged again goes after the steps staged since). */
  header(header: FlowRunHeader): void {
    this.#stage(RUN_KEY, { ...header, mark: this.#nextMark() } as unknown as JsonValue);
  }

  /** Stages a completed step run (a record of the caller's making, given its mark here). */
  step(step: StoredStepRun): void {
    step.mark = this.#nextMark();
    this.#lastStep = step;
    this.#stage(`${STEP}${step.nodeId}`, step as unknown as JsonValue);
  }

  /** Stages a completed round (`n` from 1): on the step record staged with it, else as its own record. */
  round(n: number, round: SnapshotRound): void {
    if (this.#lastStep !== undefined && this.#lastStep.ended === undefined) {
      this.#lastStep.ended = { n, steps: round.steps, emitted: round.emitted };
    } else {
      this.#stage(`${ROUND}${n}`, round as unknown as JsonValue);
    }
  }

  /** Whether records wait to be committed. */
  get staged(): boolean {
    return this.commits.staged;
  }

  /**
   * Commits what is staged (and `change` to the head) after the commits before it; resolves once it
   * landed or failed, never rejecting: a failure halts the run (`commits.failure` holds it).
   */
  commit(change: HeadChange = {}): Promise<void> {
    this.#lastStep = undefined;
    return this.commits.commit(change);
  }

  #stage(key: string, value: JsonValue): void {
    this.commits.stage({ collection: 'flow_runs', key, value });
  }

  #nextMark(): number {
    this.#mark += 1;
    return this.#mark;
  }
}
