import { CorruptSnapshotError } from '../../errors.js';
import type { JsonValue, RunHead, Store, StoredRecord } from '../../stores/store.js';
import type { Checkpoint } from '../../types.js';
import { decodeRunValue } from '../durable/codec.js';
import { RUN_KEY } from '../durable/run-key.js';
import type { EndedRound, FlowRunHeader, StoredStepRun } from './flow-store.js';

const STEP = 'step:';
const ROUND = 'round:';

/** A flow run's committed step runs, as `history` lists them: the header, and each step record in commit order. */
export interface FlowRecordsRead {
  header: FlowRunHeader;
  /** The step records, by mark (the order the run committed them). */
  steps: StoredStepRun[];
  /** The completed rounds kept as records of their own (`round:<n>`); the others ride on a step record (`ended`). */
  rounds: EndedRound[];
}

/** Reads a flow run's header and step records; undefined when the store holds no flow run `id`. */
export async function readFlowRecords(store: Store, id: string): Promise<FlowRecordsRead | undefined> {
  const records = await store.list('flow_runs', id);
  const head = records.find((r) => r.key === RUN_KEY);
  if (head === undefined) return undefined;
  const header = head.value as unknown as FlowRunHeader | null;
  if (header === null || typeof header !== 'object' || typeof header.flow !== 'string') {
    throw new CorruptSnapshotError('flow_runs', id, RUN_KEY, 'not a flow run');
  }
  const steps = records.filter((r) => r.key.startsWith(STEP)).map((r, index) => stepRecord(id, r, index));
  // Records without a mark (written before marks were kept) stay in first-write order.
  steps.sort((a, b) => (a.mark ?? 0) - (b.mark ?? 0));
  const rounds = records
    .filter((r) => r.key.startsWith(ROUND))
    .map((r) => ({ ...(r.value as unknown as EndedRound), n: Number(r.key.slice(ROUND.length)) }));
  return { header, steps, rounds };
}

function stepRecord(id: string, record: StoredRecord, index: number): StoredStepRun {
  const step = record.value as unknown as Partial<StoredStepRun> | null;
  if (typeof step?.step !== 'string' || typeof step.nodeId !== 'string' || typeof step.round !== 'number') {
    throw new CorruptSnapshotError('flow_runs', id, record.key, 'not a step run');
  }
  return { ...(step as StoredStepRun), mark: step.mark ?? index, at: step.at ?? record.updatedAt };
}

/** Decodes a value the run value codec wrote (`corrupt_snapshot` naming the record when it cannot). */
function decode(id: string, key: string, value: JsonValue | undefined): unknown {
  if (value === undefined) return undefined;
  try {
    return decodeRunValue(value);
  } catch (error) {
    throw new CorruptSnapshotError(
      'flow_runs',
      id,
      key,
      `a value the codec cannot read: ${(error as Error).message}`,
    );
  }
}

/** A flow run's checkpoints in commit order: each completed step run, with its output and the state it left. */
export function flowCheckpoints(id: string, read: FlowRecordsRead): Checkpoint[] {
  return read.steps.map((step, index) => {
    const key = `${STEP}${step.nodeId}`;
    const checkpoint: Checkpoint = {
      checkpoint: step.nodeId,
      seq: index + 1,
      nodeId: step.nodeId,
      kind: 'step',
      name: step.step,
      at: step.at ?? read.header.updatedAt,
      status: 'completed',
      output: decode(id, key, step.output),
    };
    if (step.state !== undefined) checkpoint.state = decode(id, key, step.state);
    return checkpoint;
  });
}

/** The status a flow run's history reports: its head's, else its header's. */
export function flowStatus(head: RunHead | undefined, header: FlowRunHeader): string {
  return head?.status ?? header.status;
}
