import type {
  CrewOutput,
  ExecutionLogEntry,
  Failure,
  NodeExecutionInfo,
  RunStatus,
  TaskOutput,
} from '../../types.js';
import type { NodeRecord, RunRecorder } from '../engine/recorder.js';
import { isPaused } from './crew-pause.js';

/** What a process decides about its result; everything else comes from the recorder. */
export interface ProcessSummary {
  raw: string;
  output: unknown;
  leaves: string[];
  metadata?: Record<string, unknown>;
  /** The node id of the run whose output `outputOf` returns for a task's node id. @default the same id */
  runOf?: (nodeId: string) => string;
}

/** Run-level facts the result needs besides the recorder and the process summary. */
export interface RunFacts {
  executionId: string;
  process: string;
  totalTimeMs: number;
  /** The node id whose output `outputOf(task)` returns for a task. */
  nodeIdOf(task: { readonly name: string | undefined }): string | undefined;
  /** The run was aborted: the result is partial, and never `completed`. */
  aborted?: boolean;
  /**
   * The node id of the crew's summary node, when it has one: its output is `summary` (not a task's
   * output, so not in `tasksOutput`); it counts among the nodes.
   */
  summaryNode?: string;
}

/** `completed` with no failures (an empty run too), `failed` with no successes, else `partial`. */
function statusOf(completed: number, failed: number): RunStatus {
  if (failed === 0) return 'completed';
  return completed === 0 ? 'failed' : 'partial';
}

/**
 * A run's status: an aborted run's is `partial` (something completed) or `failed`; else `paused` while
 * a node waits for a human, else as {@link statusOf} says.
 */
function runStatus(
  aborted: boolean,
  completed: number,
  failed: number,
  paused: number,
): CrewOutput['status'] {
  if (aborted) return completed > 0 ? 'partial' : 'failed';
  return paused > 0 ? 'paused' : statusOf(completed, failed);
}

/** The value a node contributes to `output` and `nodeResults`: structured when it has one, else raw. */
function nodeValue(output: TaskOutput): unknown {
  return 'structured' in output ? output.structured : output.raw;
}

/** `output` by the leaf rule: one executed leaf → its value; several → a dict by node id; none → {}. */
export function leafOutput(
  recorder: RunRecorder,
  leaves: readonly string[],
): { output: unknown; leaves: string[] } {
  const executed = leaves.filter((id) => recorder.nodes.get(id)?.output !== undefined);
  const values = executed.map((id) => nodeValue(recorder.nodes.get(id)?.output as TaskOutput));
  if (executed.length === 1) return { output: values[0], leaves: executed };
  return { output: Object.fromEntries(executed.map((id, i) => [id, values[i]])), leaves: executed };
}

/** How many node records a result takes in one turn of the event loop when built in slices. */
export const OUTPUT_SLICE = 2048;

/** Builds the one result contract from a run's recorder, its process's summary and its facts. */
export function buildCrewOutput(recorder: RunRecorder, summary: ProcessSummary, facts: RunFacts): CrewOutput {
  const steps = crewOutputSteps(recorder, summary, facts);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * {@link buildCrewOutput} in slices of {@link OUTPUT_SLICE} node records, each in its own turn of the
 * event loop: the result of a run of 100,000 tasks is built without holding its host.
 */
export async function buildCrewOutputInSlices(
  recorder: RunRecorder,
  summary: ProcessSummary,
  facts: RunFacts,
): Promise<CrewOutput> {
  const steps = crewOutputSteps(recorder, summary, facts);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The result contract, built record by record; it yields after every {@link OUTPUT_SLICE} records. */
function* crewOutputSteps(
  recorder: RunRecorder,
  summary: ProcessSummary,
  facts: RunFacts,
): Generator<void, CrewOutput> {
  const tasksOutput: TaskOutput[] = [];
  const nodeResults: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  const failures: Record<string, Failure> = {};
  const nodes: NodeExecutionInfo[] = [];
  const executionLog: ExecutionLogEntry[] = [];
  let summaryText: string | undefined;
  let paused = 0;
  for (const [at, record] of recorder.settled.entries()) {
    if (at > 0 && at % OUTPUT_SLICE === 0) yield;
    const info = toNodeInfo(record);
    const { nodeId, status, durationMs, error } = info;
    nodes.push(info);
    executionLog.push(
      error === undefined ? { nodeId, status, durationMs } : { nodeId, status, durationMs, error },
    );
    if (isPaused(record)) {
      // Waiting for a human is no failure: the node is `paused`, and `pending` says what it waits for.
      paused += 1;
    } else if (record.output !== undefined && record.nodeId === facts.summaryNode) {
      summaryText = record.output.raw;
      nodeResults[record.nodeId] = nodeValue(record.output);
    } else if (record.output !== undefined) {
      tasksOutput.push(record.output);
      nodeResults[record.nodeId] = nodeValue(record.output);
    } else if (record.error !== undefined) {
      errors[record.nodeId] = record.error;
      failures[record.nodeId] = record.failure ?? { message: record.error, retryable: false };
    }
  }
  const completed = tasksOutput.length + (summaryText === undefined ? 0 : 1);
  const failed = recorder.settled.length - completed - paused;
  const out: Omit<CrewOutput, 'outputOf'> = {
    raw: summary.raw,
    output: summary.output,
    tasksOutput,
    nodeResults,
    nodes,
    executionLog,
    status: runStatus(facts.aborted === true, completed, failed, paused),
    errors,
    failures,
    usage: usageOf(recorder),
    managerCalls: recorder.managerCalls,
    delegations: [...recorder.delegations],
    totalTimeMs: facts.totalTimeMs,
    summary:
      summaryText ??
      `${completed} completed, ${failed} failed, ${recorder.blocked.length} blocked${paused > 0 ? `, ${paused} paused` : ''}`,
    metadata: {
      executionId: facts.executionId,
      process: facts.process,
      leaves: summary.leaves,
      blocked: [...recorder.blocked],
      ...summary.metadata,
    },
  };
  // Not enumerable: a result is plain data to JSON, spreads and the state codec; the method stays callable.
  const outputOf: CrewOutput['outputOf'] = (task) => {
    const nodeId = facts.nodeIdOf(task);
    if (nodeId === undefined) return undefined;
    return recorder.nodes.get(summary.runOf ? summary.runOf(nodeId) : nodeId)?.output;
  };
  Object.defineProperty(out, 'outputOf', { value: outputOf, writable: true, configurable: true });
  return out as CrewOutput;
}

/** A run's usage: its total, the manager's, the workers', and each agent's by role. */
function usageOf(recorder: RunRecorder): CrewOutput['usage'] {
  return {
    ...recorder.usage,
    manager: { ...recorder.managerUsage },
    workers: { ...recorder.workersUsage },
    agents: Object.fromEntries([...recorder.agentsUsage].map(([role, usage]) => [role, { ...usage }])),
  };
}

function toNodeInfo(record: NodeRecord): NodeExecutionInfo {
  const paused = isPaused(record);
  const info: NodeExecutionInfo = {
    nodeId: record.nodeId,
    name: record.name,
    agent: record.agent,
    status: record.status === 'completed' ? 'completed' : paused ? 'paused' : 'failed',
    startedAt: record.startedAt,
    durationMs: record.durationMs,
    attempts: record.attempts,
    usage: { ...record.usage },
    toolCalls: [...record.toolCalls],
  };
  if (record.error !== undefined && !paused) info.error = record.error;
  if (record.errorCode !== undefined && !paused) info.errorCode = record.errorCode;
  if (record.worker !== undefined) info.worker = record.worker;
  return info;
}
