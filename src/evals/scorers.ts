import type { ZodType } from 'zod';
import type { EmbeddingModel, Llm } from '../types.js';
import type { ScoreLevel, Scorer } from './types.js';

/** What every built-in scorer takes: its name in the report, and which outputs it scores. */
export interface ScorerOptions {
  /** @default the scorer's kind (`exactMatch`, `includes`, …) */
  name?: string;
  /** `node`: each task's (crew) or step's (flow) output, against `expectedOutputs[node]`. @default 'run' */
  level?: ScoreLevel;
  /** Only these tasks or steps (with `level: 'node'`). */
  nodes?: readonly string[];
}

/** Options of {@link llmJudge}. */
export interface LlmJudgeOptions extends ScorerOptions {
  /** The judge: a model or a policy. Its calls count in the case's usage (`judge`) and the evaluation's budget. */
  model: Llm;
  /** What the judge scores against: the criteria, in words. */
  rubric: string;
  /** The scale the judge answers on; the score is `value / max`. @default [1, 10] */
  scale?: readonly [number, number];
}

/** Options of {@link similarity}. */
export interface SimilarityOptions extends ScorerOptions {
  /** Embeds the output and the expected text; its calls count in the case's usage (`judge`). */
  embed: EmbeddingModel;
}

const notBuilt = (what: string): never => {
  throw new Error(`${what} is not built yet`);
};

/** 1 when the output equals `expected` (text trimmed; values compared as JSON), else 0. */
export function exactMatch(options: ScorerOptions & { caseSensitive?: boolean } = {}): Scorer {
  return notBuilt(`exactMatch(${String(options)})`);
}

/** The share of `texts` (default: `expected`, text or list) the output contains. */
export function includes(
  texts?: string | readonly string[],
  options: ScorerOptions & { caseSensitive?: boolean } = {},
): Scorer {
  return notBuilt(`includes(${String(texts)}, ${String(options)})`);
}

/** 1 when the output's text matches `pattern`, else 0. */
export function regex(pattern: RegExp | string, options: ScorerOptions = {}): Scorer {
  return notBuilt(`regex(${String(pattern)}, ${String(options)})`);
}

/** 1 when the output (JSON text parsed) is what `schema` accepts, else 0 with zod's issues as the reason. */
export function matchesSchema(schema: ZodType, options: ScorerOptions = {}): Scorer {
  return notBuilt(`matchesSchema(${String(schema)}, ${String(options)})`);
}

/** Asks a judge model to score the output against `rubric` on `scale`; its reason is the judge's words. */
export function llmJudge(options: LlmJudgeOptions): Scorer {
  return notBuilt(`llmJudge(${String(options)})`);
}

/**
 * CrewAI's `crewai test` judge: each task's output scored 1–10 on completion, quality and overall
 * performance against its description and expected output (named `quality`, `level: 'node'`).
 */
export function crewaiTestScorer(options: { model: Llm; name?: string }): Scorer {
  return notBuilt(`crewaiTestScorer(${String(options)})`);
}

/** The cosine similarity of the output's and the expected text's embeddings, from 0 to 1. */
export function similarity(options: SimilarityOptions): Scorer {
  return notBuilt(`similarity(${String(options)})`);
}
