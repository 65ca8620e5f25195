import { CorruptSnapshotError, SnapshotVersionError } from '../../errors.js';
import type { JsonValue, RecordWrite, Store, StoredRecord } from '../../stores/store.js';
import type { Failure } from '../../types.js';
import { RUN_KEY } from '../crew/crew-store.js';
import { decodeRunValue } from '../durable/codec.js';
import type { HeadChange, RunOwner } from '../durable/run-owner.js';
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
 * From version 2 on, `state`, `inputs`, every `output` and every pending `payload` are in the run value
 * codec's form (`encodeRunValue`); version 1 kept them as plain JSON.
 */
export interface FlowRunHeader {
  version: number;
  flow: string;
  id: string;
  status: FlowRunStatus;
  state: JsonValue;
  inputs: JsonValue;
  pending: (Omit<PendingHuman, 'payload'> & { payload: JsonValue })[];
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
  if (header.version !== 1 && header.version !== FLOW_SNAPSHOT_VERSION) {
    throw new SnapshotVersionError(`Flow run ${id}`, header.version);
  }
  if (typeof header.flow !== 'string' || typeof header.status !== 'string') {
    throw corrupt(id, RUN_KEY, 'fields of a flow run are missing');
  }
  const decode = decoderOf(id, header.version);
  const rounds = roundsOf(id, records);
  const steps = records.filter((r) => r.key.startsWith(STEP)).map((r) => stepOf(id, r));
  const outputs: Record<string, unknown> = {};
  for (const step of steps) outputs[step.step] = decode(`step:${step.nodeId}`, step.output);
  const done = steps
    .filter((s) => s.round > rounds.length)
    .map(({ nodeId, step, run }) => ({ nodeId, step, run }));
  const doneSteps = new Set(done.map((d) => d.step));
  const { pending = [], state, inputs, ...rest } = header as FlowRunHeader;
  return {
    ...rest,
    state: decode(RUN_KEY, state),
    inputs: decode(RUN_KEY, inputs),
    rounds,
    done,
    trail: [...rounds.flatMap((r) => r.steps), ...[...doneSteps]],
    outputs,
    emitted: rounds.flatMap((r) => r.emitted),
    pending: pending.map((p) => ({ ...p, payload: decode(RUN_KEY, p.payload) })),
  };
}

/** How a snapshot's values read back: as the codec wrote them (version 2), or as plain JSON (version 1). */
function decoderOf(id: string, version: number): (key: string, value: JsonValue | undefined) => unknown {
  if (version === 1) return (_key, value) => value;
  return (key, value) => {
    if (value === undefined) return undefined;
    try {
      return decodeRunValue(value);
    } catch (error) {
      throw corrupt(id, key, `a value the codec cannot read: ${(error as Error).message}`);
    }
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
 * Gathers one flow run's records and commits them through its owner: what a supervisor transition
 * produced (a step run, the header, the round it ended) goes to the store as one fenced commit, in
 * the order the records were made. The run starts nothing more until that commit landed; a commit that
 * failed, or that found the lease taken, fails the run (`failure` holds why).
 */
export class FlowRunWriter {
  /** Records made since the last commit, by key (a later header replaces an earlier one). */
  readonly #staged = new Map<string, JsonValue>();
  #chain: Promise<void> = Promise.resolve();
  /** The first commit that failed, if one did: nothing is committed after it. */
  failure: unknown;

  constructor(private readonly owner: RunOwner) {}

  /** Stages the run's header. */
  header(header: FlowRunHeader): void {
    this.#staged.set(RUN_KEY, header as unknown as JsonValue);
  }

  /** Stages a completed step run. */
  step(step: StoredStepRun): void {
    this.#staged.set(`${STEP}${step.nodeId}`, step as unknown as JsonValue);
  }

  /** Stages a completed round (`n` from 1). */
  round(n: number, round: SnapshotRound): void {
    this.#staged.set(`${ROUND}${n}`, round as unknown as JsonValue);
  }

  /** Whether records wait to be committed. */
  get staged(): boolean {
    return this.#staged.size > 0;
  }

  /**
   * Commits what is staged (and `change` to the head) after the commits before it; resolves once it
   * landed or failed, never rejecting: a failure is kept in `failure` and reported to `onFailure`.
   */
  commit(change: HeadChange = {}, onFailure?: (error: unknown) => void): Promise<void> {
    const writes: RecordWrite[] = [...this.#staged].map(([key, value]) => ({
      collection: 'flow_runs',
      key,
      value,
    }));
    this.#staged.clear();
    this.#chain = this.#chain.then(async () => {
      if (this.failure !== undefined) return;
      try {
        await this.owner.commit(writes, change);
      } catch (error) {
        this.failure = error;
        onFailure?.(error);
      }
    });
    return this.#chain;
  }
}
