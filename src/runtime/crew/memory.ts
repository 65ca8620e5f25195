import { InvalidOptionError } from '../../errors.js';
import type {
  AttemptMemory,
  EmbeddingModel,
  MemoryEntry,
  MemoryQuery,
  TaskOutput,
  Usage,
} from '../../types.js';
import { contextText } from '../engine/recorder.js';

/** A crew's execution memory: every completed task run kept in order; semantic lookups with `embed`. */
export interface MemoryOptions {
  /** Ranks results by similarity to a query when set; without it, lookups go by task name or recency. */
  embed?: EmbeddingModel | undefined;
  /** Results a query returns at most. @default 3 */
  topK?: number | undefined;
}

/** Checks a `memory` option. */
export function checkMemory(where: string, memory: unknown): MemoryOptions | undefined {
  if (memory === undefined || memory === false) return undefined;
  if (memory === true) return {};
  if (typeof memory !== 'object' || memory === null) {
    throw new InvalidOptionError(where, 'memory', 'true, false or { embed?, topK? }', memory);
  }
  const { embed, topK } = memory as MemoryOptions;
  if (embed !== undefined && typeof embed?.embed !== 'function') {
    throw new InvalidOptionError(where, 'memory.embed', 'an embedding model with embed(texts)', embed);
  }
  if (topK !== undefined && !(Number.isInteger(topK) && topK >= 1)) {
    throw new InvalidOptionError(where, 'memory.topK', 'an integer ≥ 1', topK);
  }
  return memory as MemoryOptions;
}

/** A completed output of node `nodeId` (of task `output.name`; a loop's `<task>#<iteration>`) as a memory entry. */
export function memoryEntry(
  nodeId: string,
  output: Pick<TaskOutput, 'name' | 'agent' | 'raw' | 'structured'>,
): MemoryEntry {
  const entry: MemoryEntry = { nodeId, task: output.name, agent: output.agent, raw: output.raw };
  const iteration = nodeId.startsWith(`${output.name}#`)
    ? Number(nodeId.slice(output.name.length + 1))
    : Number.NaN;
  if (Number.isInteger(iteration)) entry.iteration = iteration;
  if (output.structured !== undefined) entry.structured = output.structured;
  return entry;
}

const cosine = (a: readonly number[], b: readonly number[]) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] as number;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
};

/** Where an entry's embedding is kept: by run (an earlier run's on the thread) and node. */
const vectorKey = (e: MemoryEntry) => `${e.runId ?? ''}\u0000${e.nodeId}`;

/**
 * One run's execution memory: its completed task runs (read from the run's own record, so a resumed
 * run's restored tasks are in it), and each result's embedding, computed once and kept for the run.
 */
export class RunMemory {
  readonly #vectors = new Map<string, number[]>();

  constructor(
    private readonly options: MemoryOptions,
    private readonly completed: () => MemoryEntry[],
  ) {}

  /** The memory as the attempt `report`s for sees it: embedding calls reported as that attempt's usage. */
  forAttempt(report: (usage: Usage, durationMs: number) => void): AttemptMemory {
    return {
      entries: () => this.completed(),
      lookup: (query, signal) => this.#lookup(query, signal, report),
    };
  }

  async #lookup(
    query: MemoryQuery,
    signal: AbortSignal,
    report: (usage: Usage, durationMs: number) => void,
  ): Promise<MemoryEntry[]> {
    const topK = this.options.topK ?? 3;
    let entries = this.completed();
    if (query.task !== undefined)
      entries = entries.filter((e) => e.task === query.task || e.nodeId === query.task);
    const { embed } = this.options;
    if (query.query === undefined || embed === undefined) return entries.slice(-(query.last ?? topK));
    const missing = entries.filter((e) => !this.#vectors.has(vectorKey(e)));
    const texts = [...missing.map(contextText), query.query];
    const started = Date.now();
    const { embeddings, usage } = await embed.embed(texts, { signal });
    const tokens = usage?.tokens ?? 0;
    report(
      { inputTokens: tokens, outputTokens: 0, totalTokens: tokens, calls: usage?.calls ?? 1 },
      Date.now() - started,
    );
    for (const [i, e] of missing.entries()) this.#vectors.set(vectorKey(e), embeddings[i] ?? []);
    const asked = embeddings[texts.length - 1] ?? [];
    return entries
      .map((e) => ({ e, score: cosine(asked, this.#vectors.get(vectorKey(e)) ?? []) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, query.last ?? topK)
      .map(({ e }) => e);
  }
}
