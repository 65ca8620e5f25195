import type { TaskWait } from '../../actors/pause.js';
import { type JsonValue, toJson } from '../../stores/store.js';
import type { CrewOutput, DelegationMessage, RunStatus, Usage } from '../../types.js';
import { decodeRunValue, encodeRunValue } from '../durable/codec.js';
import type { NodeRecord } from '../engine/recorder.js';
import { isPaused } from './crew-pause.js';

/** A task run's result as a crew stores it in `crew_task_results`, keyed by its node id. */
export interface StoredTaskResult {
  /** The crew and process of the run, so a run whose process died is still described. */
  crew: string;
  process: string;
  nodeId: string;
  name: string;
  agent: string;
  description: string;
  /** `paused`: it waits for a human (`waiting`), and goes on with `crew.resume(id, { approvals | reviews })`. */
  status: 'completed' | 'failed' | 'paused';
  /** What a paused run waits for and needs to go on: its conversation's pause, or the output to review. */
  waiting?: TaskWait;
  /** The output text (completed runs). */
  raw?: string;
  /** The parsed output, when the task has an `outputSchema` (completed runs): Dates, Maps… come back as they were. */
  structured?: unknown;
  /** When its first attempt started, in epoch ms. */
  startedAt: number;
  attempts: number;
  durationMs: number;
  usage: Usage;
  /** Why it failed for good, and the code (failed runs). */
  error?: string;
  code?: string;
  /** What its agent was asked (persona and task lines) and the context it read. */
  prompt?: string;
  context?: string;
  /** The messages its agents sent coworkers, with their replies, in the order asked (when there were any). */
  delegations?: DelegationMessage[];
  /** What each agent's model calls spent in it, by role, when coworkers spoke in it (else all is `agent`'s). */
  agentUsage?: Record<string, Usage>;
}

/** A crew run's document as it is stored in `crew_executions` (key `run`) when the run ends. */
export interface StoredCrewExecution {
  executionId: string;
  crew: string;
  process: string;
  /**
   * `aborted`: the run was stopped by its signal (it can be resumed); `paused`: it waits for answers
   * (approvals, reviews) and goes on with `crew.resume`.
   */
  status: RunStatus | 'aborted' | 'paused';
  raw: string;
  output: JsonValue;
  summary: string;
  startedAt: number;
  totalTimeMs: number;
}

/** The marker of a task result whose `structured` is in the run value codec's form. */
const CODEC = 'devalue';

/**
 * A task result as its record keeps it: `structured` and `waiting` in the codec's form (they were
 * checked when the task settled).
 */
export function taskResultRecord(result: StoredTaskResult): JsonValue {
  const { structured, waiting, ...rest } = result;
  const record: Record<string, unknown> = rest;
  if ('structured' in result) record.structured = encodeRunValue(structured);
  if (waiting !== undefined) record.waiting = encodeRunValue(waiting);
  if ('structured' in result || waiting !== undefined) record.codec = CODEC;
  return record as JsonValue;
}

/** A task result read back from its record (one written before the codec keeps `structured` as JSON). */
export function readTaskResult(value: JsonValue): StoredTaskResult {
  const record = value as unknown as StoredTaskResult & { codec?: string };
  if (record?.codec !== CODEC) return record;
  const { codec: _codec, ...result } = record;
  if ('structured' in record) result.structured = decodeRunValue(record.structured as JsonValue);
  if (record.waiting !== undefined) {
    result.waiting = decodeRunValue(record.waiting as unknown as JsonValue) as TaskWait;
  }
  return result;
}

/** A settled node's record as the store keeps it (its description from the run's plan). */
export function storedTaskResult(
  record: NodeRecord,
  asked: { description: string; prompt: string; context: string },
  run: { crew: string; process: string },
): StoredTaskResult {
  const { description } = asked;
  const stored: StoredTaskResult = {
    crew: run.crew,
    process: run.process,
    nodeId: record.nodeId,
    name: record.name,
    agent: record.agent,
    description,
    status: record.status === 'completed' ? 'completed' : isPaused(record) ? 'paused' : 'failed',
    startedAt: record.startedAt,
    attempts: record.attempts,
    durationMs: record.durationMs,
    usage: { ...record.usage },
  };
  if (record.output !== undefined) {
    stored.raw = record.output.raw;
    if ('structured' in record.output) stored.structured = record.output.structured;
  }
  const waiting = isPaused(record) ? record.wait : undefined;
  if (waiting !== undefined) stored.waiting = waiting;
  else {
    if (record.error !== undefined) stored.error = record.error;
    if (record.errorCode !== undefined) stored.code = record.errorCode;
  }
  stored.prompt = asked.prompt;
  stored.context = asked.context;
  if (record.delegations.length > 0) stored.delegations = record.delegations.map((m) => ({ ...m }));
  const byRole = record.agentUsage;
  if (byRole !== undefined && [...byRole.keys()].some((role) => role !== record.agent)) {
    stored.agentUsage = Object.fromEntries([...byRole].map(([role, usage]) => [role, { ...usage }]));
  }
  return stored;
}

/** A finished run's document. */
export function storedExecution(out: CrewOutput, crew: string, startedAt: number): StoredCrewExecution {
  return {
    executionId: out.metadata.executionId,
    crew,
    process: out.metadata.process,
    status: out.status,
    raw: out.raw,
    output: toJson(out.output),
    summary: out.summary,
    startedAt,
    totalTimeMs: out.totalTimeMs,
  };
}
