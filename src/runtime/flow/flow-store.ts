import { CorruptSnapshotError, FlowExistsError, SnapshotVersionError } from '../../errors.js';
import type { JsonValue, Store, StoredRecord } from '../../stores/store.js';
import type { Failure } from '../../types.js';
import { RUN_KEY } from '../crew-store.js';
import {
  FLOW_SNAPSHOT_VERSION,
  type FlowRunStatus,
  type FlowSnapshot,
  type PendingHuman,
  type SnapshotRound,
  type SnapshotStepRun,
} from './snapshot.js';

/**
 * How a flow run is laid out in `flow_runs` (all under the run's id), so that each step writes what
 * is new and never the whole run again:
 *   `run`           the header: status, state, inputs, pending human steps, errors (rewritten per step)
 *   `round:<n>`     a completed round: its steps and what it emitted
 *   `step:<nodeId>` a completed step run: its output and the round it ran in
 */
export interface FlowRunHeader {
  version: number;
  flow: string;
  id: string;
  status: FlowRunStatus;
  state: JsonValue;
  inputs: JsonValue;
  pending: PendingHuman[];
  errors: Record<string, string>;
  failures: Record<string, Failure>;
  updatedAt: number;
}

/** A completed step run as it is stored. */
export interface StoredStepRun extends SnapshotStepRun {
  /** The round it ran in, from 1. */
  round: number;
  output: JsonValue;
}

const ROUND = 'round:';
const STEP = 'step:';

const corrupt = (id: string, key: string, why: string) => new CorruptSnapshotError('flow_runs', id, key, why);

/** Reads a flow run from `store` and puts its snapshot together; undefined when there is none. */
export async function loadSnapshot(store: Store, id: string): Promise<FlowSnapshot | undefined> {
  const records = await store.list('flow_runs', id);
  const head = records.find((r) => r.key === RUN_KEY);
  if (head === undefined) return undefined;
  const header = head.value as unknown as Partial<FlowRunHeader> | null;
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    throw corrupt(id, RUN_KEY, 'not a flow run');
  }
  if (header.version !== FLOW_SNAPSHOT_VERSION)
    throw new SnapshotVersionError(`Flow run ${id}`, header.version);
  if (typeof header.flow !== 'string' || typeof header.status !== 'string') {
    throw corrupt(id, RUN_KEY, 'fields of a flow run are missing');
  }
  const rounds = roundsOf(id, records);
  const steps = records.filter((r) => r.key.startsWith(STEP)).map((r) => stepOf(id, r));
  const outputs: Record<string, JsonValue> = {};
  for (const step of steps) outputs[step.step] = step.output;
  const done = steps
    .filter((s) => s.round > rounds.length)
    .map(({ nodeId, step, run }) => ({ nodeId, step, run }));
  const doneSteps = new Set(done.map((d) => d.step));
  return {
    ...(header as FlowRunHeader),
    rounds,
    done,
    trail: [...rounds.flatMap((r) => r.steps), ...[...doneSteps]],
    outputs,
    emitted: rounds.flatMap((r) => r.emitted),
    pending: header.pending ?? [],
  };
}

function roundsOf(id: string, records: readonly StoredRecord[]): SnapshotRound[] {
  const rounds: SnapshotRound[] = [];
  for (const record of records) {
    if (!record.key.startsWith(ROUND)) continue;
    const n = Number(record.key.slice(ROUND.length));
    const round = record.value as unknown as Partial<SnapshotRound>;
    if (!Number.isInteger(n) || !Array.isArray(round?.steps) || !Array.isArray(round?.emitted)) {
      throw corrupt(id, record.key, 'not a round');
    }
    rounds[n - 1] = { steps: round.steps, emitted: round.emitted };
  }
  if (rounds.some((r) => r === undefined)) throw corrupt(id, ROUND, 'a round is missing');
  return rounds;
}

function stepOf(id: string, record: StoredRecord): StoredStepRun {
  const step = record.value as unknown as Partial<StoredStepRun>;
  if (typeof step?.step !== 'string' || typeof step.round !== 'number' || typeof step.nodeId !== 'string') {
    throw corrupt(id, record.key, 'not a step run');
  }
  return step as StoredStepRun;
}

/**
 * Writes one flow run's records, one after another in the order they were made (so a later header
 * never lands before an earlier one). A failed write fails the run: `failure` holds it.
 */
export class FlowRunWriter {
  #chain: Promise<void> = Promise.resolve();
  /** The first write that failed, if one did. */
  failure: unknown;

  constructor(
    private readonly store: Store,
    private readonly id: string,
  ) {}

  /** Claims the run's id with its first header: rejects with `flow_exists` when a run holds it. */
  async claim(header: FlowRunHeader): Promise<void> {
    const claimed = await this.store.insert('flow_runs', this.id, RUN_KEY, header as unknown as JsonValue);
    if (!claimed) throw new FlowExistsError(header.flow, this.id);
  }

  /** Writes the run's header (after the records before it); never rejects. */
  header(header: FlowRunHeader): Promise<void> {
    return this.#write(RUN_KEY, header as unknown as JsonValue);
  }

  /** Writes a completed step run. */
  step(step: StoredStepRun): Promise<void> {
    return this.#write(`${STEP}${step.nodeId}`, step as unknown as JsonValue);
  }

  /** Writes a completed round (`n` from 1). */
  round(n: number, round: SnapshotRound): Promise<void> {
    return this.#write(`${ROUND}${n}`, round as unknown as JsonValue);
  }

  #write(key: string, value: JsonValue): Promise<void> {
    this.#chain = this.#chain.then(async () => {
      if (this.failure !== undefined) return;
      try {
        await this.store.put('flow_runs', this.id, key, value);
      } catch (error) {
        this.failure = error;
      }
    });
    return this.#chain;
  }
}
