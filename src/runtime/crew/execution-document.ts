import { waitingForTask } from '../../actors/pause.js';
import type { JsonValue, Store, StoredRecord } from '../../stores/store.js';
import type { DelegationMessage, MemoryEntry, RunStatus, Usage, WaitingFor } from '../../types.js';
import { RUN_KEY } from '../durable/run-key.js';
import { readTaskResult, type StoredCrewExecution, type StoredTaskResult } from './crew-store.js';
import { memoryEntry } from './memory.js';
import { SUMMARY_NODE } from './summary.js';

/** One task run of a stored crew run, in execution order. */
export interface ExecutionResult {
  nodeId: string;
  name: string;
  agent: string;
  description: string;
  /** The output text (completed runs). */
  raw?: string;
  structured?: unknown;
  /** `paused`: it waits for a human (its run goes on with `crew.resume(id, { approvals | reviews })`). */
  status: 'completed' | 'failed' | 'paused';
  attempts: number;
  durationMs: number;
  usage: Usage;
  /** Why it failed for good (failed runs), and its code. */
  error?: string;
  code?: string;
  /** What it waits for (paused runs). */
  waiting?: WaitingFor;
  /** When its first attempt started, in epoch ms. */
  startedAt?: number;
  /** What its agent was asked (persona and task lines) and the context it read. */
  prompt?: string;
  context?: string;
  /** The messages its agents sent coworkers, with their replies (absent in records written before they were kept). */
  delegations?: DelegationMessage[];
  /** What each agent spent in it, by role, when coworkers spoke in it. */
  agentUsage?: Record<string, Usage>;
}

/**
 * A stored run's status: the run's own, `aborted` when its signal stopped it, or `interrupted` when
 * its process died before it ended.
 */
export type ExecutionStatus = RunStatus | 'aborted' | 'interrupted' | 'paused';

/** What an {@link ExecutionDocument} holds, as plain data (`toJSON`). */
export interface ExecutionDocumentData {
  executionId: string;
  crew: string;
  process: string;
  status: ExecutionStatus;
  results: ExecutionResult[];
  /** The run's output (undefined for an interrupted run). */
  output: JsonValue | undefined;
  summary: string;
  /** When the run started, in epoch ms (an interrupted run: its first task's start). */
  startedAt: number;
  /** How long the run took (undefined for an interrupted run). */
  totalTimeMs: number | undefined;
}

/**
 * A crew run as its store kept it, readable without the crew or any model: for reports, audits and
 * deciding what to resume.
 *
 * @example
 * const doc = await ExecutionDocument.fromStore(store, out.metadata.executionId);
 * console.log(doc?.status, doc?.toMarkdown());
 */
export class ExecutionDocument implements ExecutionDocumentData {
  readonly executionId: string;
  readonly crew: string;
  readonly process: string;
  readonly status: ExecutionStatus;
  readonly results: ExecutionResult[];
  readonly output: JsonValue | undefined;
  readonly summary: string;
  readonly startedAt: number;
  readonly totalTimeMs: number | undefined;

  private constructor(data: ExecutionDocumentData) {
    this.executionId = data.executionId;
    this.crew = data.crew;
    this.process = data.process;
    this.status = data.status;
    this.results = data.results;
    this.output = data.output;
    this.summary = data.summary;
    this.startedAt = data.startedAt;
    this.totalTimeMs = data.totalTimeMs;
  }

  /**
   * Reads a run from `store`: its document when the run ended, else — its process died — its task
   * results, as `interrupted`. Undefined when the store holds nothing of it.
   */
  static async fromStore(store: Store, executionId: string): Promise<ExecutionDocument | undefined> {
    const [run, rows] = await Promise.all([
      store.get('crew_executions', executionId, RUN_KEY),
      store.list('crew_task_results', executionId),
    ]);
    return ExecutionDocument.fromRecords(executionId, run, rows);
  }

  /**
   * A run's document from its records as the store gave them: its end document (`crew_executions`,
   * undefined when it has none) and its task results (`crew_task_results`, in commit order); see
   * {@link ExecutionDocument.fromStore}.
   */
  static fromRecords(
    executionId: string,
    run: StoredRecord | undefined,
    rows: readonly StoredRecord[],
  ): ExecutionDocument | undefined {
    const stored = rows.map((row) => readTaskResult(row.value));
    const results = stored.map(toResult);
    if (run !== undefined) {
      const document = run.value as unknown as StoredCrewExecution;
      return new ExecutionDocument({ ...document, results });
    }
    const first = stored[0];
    if (first === undefined) return undefined;
    const completed = results.filter((r) => r.status === 'completed').length;
    const paused = results.filter((r) => r.status === 'paused').length;
    return new ExecutionDocument({
      executionId,
      crew: first.crew,
      process: first.process,
      status: 'interrupted',
      results,
      output: undefined,
      summary: `${completed} completed, ${results.length - completed - paused} failed${paused > 0 ? `, ${paused} paused` : ''}, interrupted`,
      startedAt: Math.min(...stored.map((r) => r.startedAt)),
      totalTimeMs: undefined,
    });
  }

  /** The document as plain data. */
  /**
   * The run's execution memory as the store kept it: every completed task run (not the summary), in
   * the order they completed — what a resumed or replayed run's results tool sees first.
   */
  memory(): MemoryEntry[] {
    return this.results.flatMap((r) =>
      r.status !== 'completed' || r.nodeId === SUMMARY_NODE
        ? []
        : [
            memoryEntry(r.nodeId, {
              name: r.name,
              agent: r.agent,
              raw: r.raw ?? '',
              structured: r.structured,
            }),
          ],
    );
  }

  toJSON(): ExecutionDocumentData {
    const { executionId, crew, process, status, results, output, summary, startedAt, totalTimeMs } = this;
    return { executionId, crew, process, status, results, output, summary, startedAt, totalTimeMs };
  }

  /** The run as Markdown: the same document always gives the same text (no clock, no model). */
  toMarkdown(): string {
    const lines = [
      `# ${this.crew} — ${this.executionId}`,
      '',
      `- Process: ${this.process}`,
      `- Status: ${this.status}`,
      `- Started: ${new Date(this.startedAt).toISOString()}`,
    ];
    if (this.totalTimeMs !== undefined) lines.push(`- Total time: ${this.totalTimeMs} ms`);
    lines.push(`- Summary: ${this.summary}`, '');
    if (this.output !== undefined) {
      const text = typeof this.output === 'string' ? this.output : JSON.stringify(this.output, null, 2);
      lines.push('## Output', '', ...fenced(text), '');
    }
    lines.push('## Tasks', '');
    this.results.forEach((result, i) => {
      const title = result.name === result.nodeId ? result.name : `${result.name} (${result.nodeId})`;
      const { inputTokens, outputTokens, calls } = result.usage;
      lines.push(
        `### ${i + 1}. ${title} — ${result.status}`,
        '',
        `- Agent: ${result.agent}`,
        `- Attempts: ${result.attempts}; ${result.durationMs} ms; ${calls} model calls, ${inputTokens} tokens in, ${outputTokens} out`,
        `- Task: ${result.description}`,
      );
      if (result.error !== undefined)
        lines.push(`- Error: ${result.error}${result.code ? ` (${result.code})` : ''}`);
      if (result.raw !== undefined) lines.push('', ...fenced(result.raw));
      lines.push('');
    });
    return `${lines.join('\n').trimEnd()}\n`;
  }
}

/** A stored task result as the document lists it (without what only the store needs). */
function toResult(stored: StoredTaskResult): ExecutionResult {
  const result: ExecutionResult = {
    nodeId: stored.nodeId,
    name: stored.name,
    agent: stored.agent,
    description: stored.description,
    status: stored.status,
    attempts: stored.attempts,
    durationMs: stored.durationMs,
    usage: stored.usage,
  };
  if (stored.raw !== undefined) result.raw = stored.raw;
  if (stored.structured !== undefined) result.structured = stored.structured;
  if (stored.error !== undefined) result.error = stored.error;
  if (stored.code !== undefined) result.code = stored.code;
  if (stored.waiting !== undefined) result.waiting = waitingForTask(stored.waiting);
  if (stored.startedAt !== undefined) result.startedAt = stored.startedAt;
  if (stored.prompt !== undefined) result.prompt = stored.prompt;
  if (stored.context !== undefined) result.context = stored.context;
  if (stored.delegations !== undefined) result.delegations = stored.delegations;
  if (stored.agentUsage !== undefined) result.agentUsage = stored.agentUsage;
  return result;
}

/** `text` in a code fence longer than any run of backticks inside it. */
function fenced(text: string): string[] {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}text`, text, fence];
}
