import { describeThrown, StatecrewError } from '../errors.js';
import { type JsonValue, type Store, type StoreCollection, toJson } from '../stores/store.js';
import type { CrewOutput, RunStatus, StoreErrorRecord, Usage } from '../types.js';
import type { EventHub } from './event-hub.js';
import type { NodeRecord } from './recorder.js';

/** A task run's result as a crew stores it in `crew_task_results`, keyed by its node id. */
export interface StoredTaskResult {
  /** The crew and process of the run, so a run whose process died is still described. */
  crew: string;
  process: string;
  nodeId: string;
  name: string;
  agent: string;
  description: string;
  status: 'completed' | 'failed';
  /** The output text (completed runs). */
  raw?: string;
  /** The parsed output, when the task has an `outputSchema` (completed runs). */
  structured?: JsonValue;
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
}

/** A crew run's document as it is stored in `crew_executions` (key `run`) when the run ends. */
export interface StoredCrewExecution {
  executionId: string;
  crew: string;
  process: string;
  /** `aborted`: the run was stopped by its signal (it can be resumed). */
  status: RunStatus | 'aborted';
  raw: string;
  output: JsonValue;
  summary: string;
  startedAt: number;
  totalTimeMs: number;
}

/** The key of a run's own document in `crew_executions` and `flow_runs`. */
export const RUN_KEY = 'run';

/**
 * Writes one crew run's records to its store. No write ever rejects: a failure becomes a
 * {@link StoreErrorRecord} and a `store.error` event, and the run goes on.
 */
export class CrewStoreWriter {
  /** The writes that failed, in order. */
  readonly errors: StoreErrorRecord[] = [];
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly executionId: string,
    private readonly hub: EventHub,
  ) {}

  /** Writes a settled task run's result (keyed by its node id); resolves once it landed or failed. */
  writeTask(result: StoredTaskResult): Promise<void> {
    return this.#write('crew_task_results', result.nodeId, result as unknown as JsonValue);
  }

  /** Writes the run's document; resolves once it landed or failed. */
  writeExecution(document: StoredCrewExecution): Promise<void> {
    return this.#write('crew_executions', RUN_KEY, document as unknown as JsonValue);
  }

  /** Writes a record; resolves once it landed or failed (never rejects). */
  #write(collection: StoreCollection, key: string, value: JsonValue): Promise<void> {
    let written: Promise<void>;
    try {
      written = this.store.put(collection, this.executionId, key, value);
    } catch (error) {
      written = Promise.reject(error);
    }
    const settled = written.then(
      () => {},
      (error: unknown) => this.#failed(collection, key, error),
    );
    this.#pending.add(settled);
    void settled.then(() => this.#pending.delete(settled));
    return settled;
  }

  /** Resolves once every write started so far has landed or failed. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  #failed(collection: StoreCollection, key: string, error: unknown): void {
    const record: StoreErrorRecord = { collection, key, error: describeThrown(error) };
    if (error instanceof StatecrewError) record.code = error.code;
    this.errors.push(record);
    this.hub.emit({ type: 'store.error', ...record });
  }
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
    status: record.status === 'completed' ? 'completed' : 'failed',
    startedAt: record.startedAt,
    attempts: record.attempts,
    durationMs: record.durationMs,
    usage: { ...record.usage },
  };
  if (record.output !== undefined) {
    stored.raw = record.output.raw;
    if ('structured' in record.output) stored.structured = toJson(record.output.structured);
  }
  if (record.error !== undefined) stored.error = record.error;
  if (record.errorCode !== undefined) stored.code = record.errorCode;
  stored.prompt = asked.prompt;
  stored.context = asked.context;
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
