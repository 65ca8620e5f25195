import {
  CheckpointNotFoundError,
  CorruptSnapshotError,
  FlowMismatchError,
  InvalidOptionError,
  RunExistsError,
  RunNotFoundError,
} from '../../errors.js';
import type { JsonValue, RecordWrite, Store } from '../../stores/store.js';
import type { RunLineage } from '../../types.js';
import { checkRunId } from '../durable/claim.js';
import { decodeRunValue } from '../durable/codec.js';
import { RUN_KEY } from '../durable/run-key.js';
import type { RunOwner } from '../durable/run-owner.js';
import { checkInputs } from '../run/inputs.js';
import type { FlowDefinition } from './definition.js';
import { type FlowRecordsRead, readFlowRecords } from './flow-history.js';
import { storedInputs } from './flow-records.js';
import { type FlowRunHeader, type StoredFlowSnapshot, type StoredStepRun, snapshotOf } from './flow-store.js';
import { checkForkState, editOutputs, editState } from './fork-edits.js';
import { FLOW_SNAPSHOT_VERSION } from './snapshot.js';

/** What a fork is asked for, its options checked for their keys. */
export interface ForkRequest {
  at: string | number;
  outputs?: Record<string, unknown> | undefined;
  state?: Record<string, unknown> | ((state: unknown) => unknown) | undefined;
  inputs?: Record<string, unknown> | undefined;
  id?: string | undefined;
}

/** A fork, ready to be created: the new run's id, lineage and inputs, and its first records. */
export interface ForkPlan {
  id: string;
  lineage: RunLineage;
  inputs: Record<string, unknown>;
  /** The inputs in their stored form (the head's `data.inputs`, the header's `inputs`). */
  storedInputs: JsonValue;
  /** The kept step runs (marked 1..k), the rounds before the checkpoint's, and the header. */
  writes: RecordWrite[];
}

/**
 * Plans a fork of stored run `sourceId` of `definition` at `request.at`, from the records committed
 * when it reads them: `run_not_found`, `flow_mismatch`, `checkpoint_not_found`, and the edits'
 * `invalid_option` and `invalid_state` before anything is written.
 */
export async function planFork(
  definition: FlowDefinition<unknown>,
  store: Store,
  sourceId: string,
  request: ForkRequest,
  now: number,
): Promise<ForkPlan> {
  const where = `Flow "${definition.name}" fork`;
  const read = await sourceRecords(definition, store, sourceId, where);
  const seq = checkpointOf(where, sourceId, read.steps, request.at);
  const atRun = read.steps[seq - 1] as StoredStepRun;
  const at = { seq, checkpoint: atRun.nodeId };
  const scope = {
    where,
    steps: definition.steps,
    kept: read.steps.slice(0, at.seq),
    after: read.steps.slice(at.seq),
    round: atRun.round,
    checkpoint: at.checkpoint,
  };
  const kept = editOutputs(scope, request.outputs);
  const given = checkInputs(where, request.inputs);
  const id = request.id ?? (typeof given.id === 'string' ? given.id : globalThis.crypto.randomUUID());
  checkRunId(where, request.id === undefined ? 'inputs.id' : 'id', id);
  const base = stateAt(sourceId, atRun, read.header.state);
  const state = editState(where, base, request.state, given, id);
  const encoded = checkForkState(where, definition.state, state);
  // The new id among the inputs too: a fork whose process died before its first commit keeps it.
  const inputs = { ...(decodeRunValue(read.header.inputs) as object), ...given, id };
  const stored = storedInputs(definition.name, inputs);
  const header = forkHeader(read.header, kept, { id, state: encoded, inputs: stored, now });
  const writes = [...keptWrites(kept), ...roundWrites(read, kept, atRun.round), headerWrite(header, kept)];
  return {
    id,
    lineage: { runId: sourceId, checkpoint: at.checkpoint },
    inputs,
    storedInputs: stored,
    writes,
  };
}

/** The source run's records: `run_not_found` without any, `flow_mismatch` for another flow's (or a crew's) run. */
async function sourceRecords(
  definition: FlowDefinition<unknown>,
  store: Store,
  id: string,
  where: string,
): Promise<FlowRecordsRead> {
  const [head, read] = await Promise.all([store.readRun(id), readFlowRecords(store, id)]);
  if (head !== undefined && (head.kind !== 'flow' || head.name !== definition.name)) {
    throw new FlowMismatchError(definition.name, id, head.kind === 'flow' ? head.name : `crew ${head.name}`);
  }
  if (read === undefined) throw new RunNotFoundError(where, id);
  if (read.header.flow !== definition.name)
    throw new FlowMismatchError(definition.name, id, read.header.flow);
  return read;
}

/**
 * The seq of the committed checkpoint `at` names (a node id, or a seq) among the source's step runs
 * in commit order — found without decoding any of them; `checkpoint_not_found` listing the known ones.
 */
function checkpointOf(
  where: string,
  runId: string,
  steps: readonly StoredStepRun[],
  at: string | number,
): number {
  if (typeof at !== 'string' && typeof at !== 'number') {
    throw new InvalidOptionError(where, 'at', 'a checkpoint: its node id or its seq', at);
  }
  const index =
    typeof at === 'number'
      ? Number.isInteger(at) && at >= 1 && at <= steps.length
        ? at - 1
        : -1
      : steps.findIndex((step) => step.nodeId === at);
  if (index < 0) {
    throw new CheckpointNotFoundError(
      where,
      runId,
      at,
      steps.map((step) => step.nodeId),
    );
  }
  return index + 1;
}

/** The state step run `run` left (the header's, for a record that carries none); `corrupt_snapshot` when unreadable. */
function stateAt(id: string, run: StoredStepRun, headerState: JsonValue): Record<string, unknown> {
  try {
    return decodeRunValue(run.state ?? headerState) as Record<string, unknown>;
  } catch (error) {
    const why = `a value the codec cannot read: ${(error as Error).message}`;
    throw new CorruptSnapshotError('flow_runs', id, `step:${run.nodeId}`, why);
  }
}

/** The kept step runs as the fork's records, marked 1..k in commit order (their rounds are written apart). */
function keptWrites(kept: readonly StoredStepRun[]): RecordWrite[] {
  return kept.map(({ ended: _ended, ...step }, index) => ({
    collection: 'flow_runs',
    key: `step:${step.nodeId}`,
    value: { ...step, mark: index + 1 } as unknown as JsonValue,
  }));
}

/**
 * The rounds completed before round `round` (the checkpoint's), as `round:<n>` records: from the
 * source's round records and the kept step records that carried one. The checkpoint's round is
 * rebuilt from them, its kept runs restored.
 */
function roundWrites(read: FlowRecordsRead, kept: readonly StoredStepRun[], round: number): RecordWrite[] {
  const rounds = new Map<number, { steps: string[]; emitted: string[] }>();
  for (const r of read.rounds) if (r.n < round) rounds.set(r.n, { steps: r.steps, emitted: r.emitted });
  for (const s of kept) {
    if (s.ended !== undefined && s.ended.n < round) {
      rounds.set(s.ended.n, { steps: s.ended.steps, emitted: s.ended.emitted });
    }
  }
  return [...rounds].map(([n, r]) => ({
    collection: 'flow_runs',
    key: `round:${n}`,
    value: { steps: [...r.steps], emitted: [...r.emitted] },
  }));
}

/** The fork's header: running, its state and inputs, the source's handled failures and kept sleeps. */
function forkHeader(
  source: FlowRunHeader,
  kept: readonly StoredStepRun[],
  fork: { id: string; state: JsonValue; inputs: JsonValue; now: number },
): FlowRunHeader {
  const failures = Object.fromEntries(
    Object.entries(source.failures ?? {}).filter(([, f]) => f.handled === true),
  );
  const errors = Object.fromEntries(Object.keys(failures).map((step) => [step, source.errors?.[step] ?? '']));
  const keptNodes = new Set(kept.map((s) => s.nodeId));
  const sleeps = Object.entries(source.sleeps ?? {}).filter(([nodeId]) => keptNodes.has(nodeId));
  return {
    version: FLOW_SNAPSHOT_VERSION,
    flow: source.flow,
    id: fork.id,
    status: 'running',
    state: fork.state,
    inputs: fork.inputs,
    pending: [],
    errors,
    failures,
    ...(sleeps.length === 0 ? {} : { sleeps: Object.fromEntries(sleeps) }),
    updatedAt: fork.now,
  };
}

function headerWrite(header: FlowRunHeader, kept: readonly StoredStepRun[]): RecordWrite {
  return {
    collection: 'flow_runs',
    key: RUN_KEY,
    value: { ...header, mark: kept.length + 1 } as unknown as JsonValue,
  };
}

/**
 * Creates the fork's run for `owner` (its id: `run_exists` when taken), its head carrying its inputs
 * and lineage, and writes its first records in one commit; the snapshot it goes on from, as a resume
 * reads it. A first commit that failed leaves the head failed and rejects.
 */
export async function createFork(
  owner: RunOwner,
  flow: string,
  plan: ForkPlan,
  extra: { events?: 'store' | undefined },
): Promise<StoredFlowSnapshot> {
  const where = `Flow "${flow}" fork`;
  const data = {
    inputs: plan.storedInputs,
    forkedFrom: { runId: plan.lineage.runId, checkpoint: plan.lineage.checkpoint },
    ...(extra.events === 'store' ? { events: 'store' } : {}),
  };
  if (!(await owner.create('flow', flow, data))) {
    const head = await owner.store.readRun(owner.id);
    throw new RunExistsError(where, owner.id, head?.kind ?? 'flow', head?.name ?? flow);
  }
  try {
    await owner.commit(plan.writes, {});
    // The snapshot of the records just committed, as a resume would read them back (without the read).
    const snapshot = snapshotOf(owner.id, plan.writes);
    if (snapshot === undefined)
      throw new RunNotFoundError(where, owner.id, 'its first records were not found');
    return snapshot;
  } catch (error) {
    await owner.releaseQuietly('failed');
    throw error;
  }
}
