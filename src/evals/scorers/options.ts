import { z } from 'zod';
import { InvalidOptionError } from '../../errors.js';
import { flag, oneOf, text } from '../../options/fields.js';
import { option } from '../../options/option.js';
import { parseOptions } from '../../options/parse.js';
import type { EmbeddingModel, Llm, ModelPrice } from '../../types.js';
import type { ScoreLevel } from '../types.js';

/** What every built-in scorer takes: its name in the report, and which outputs it scores. */
export interface ScorerOptions {
  /** @default the scorer's kind (`exactMatch`, `includes`, …) */
  name?: string;
  /** `node`: each task's (crew) or step's (flow) output, against `expectedOutputs[node]`. @default 'run' */
  level?: ScoreLevel;
  /** Only these tasks or steps (with `level: 'node'`). */
  nodes?: readonly string[];
}

/** Options of the scorers that compare text ({@link ScorerOptions} and case). */
export interface TextScorerOptions extends ScorerOptions {
  /** Whether `A` and `a` differ. @default true */
  caseSensitive?: boolean;
}

/** Options of `llmJudge`. */
export interface LlmJudgeOptions extends ScorerOptions {
  /** The judge: a model or a policy. Its calls count in the case's usage (`judge`) and the evaluation's budget. */
  model: Llm;
  /** What the judge scores against: the criteria, in words. */
  rubric: string;
  /** The scale the judge answers on; the score is `value / max`. @default [1, 10] */
  scale?: readonly [number, number];
  /** Prices the judge's calls when its model reports no cost (per million tokens). */
  price?: ModelPrice;
}

/** Options of `crewaiTestScorer`. */
export interface CrewaiTestScorerOptions {
  /** The judge: a model or a policy. */
  model: Llm;
  /** @default 'quality' */
  name?: string;
  /** Prices the judge's calls when its model reports no cost (per million tokens). */
  price?: ModelPrice;
}

/** Options of `similarity`. */
export interface SimilarityOptions extends ScorerOptions {
  /** Embeds the output and the expected text; its calls count in the case's usage (`judge`). */
  embed: EmbeddingModel;
  /** Prices the embedding calls when the model reports no cost (`inputPerMTok`). */
  price?: ModelPrice;
}

/** The options every scorer was given, checked: its name, level and nodes. */
export interface ScorerBase {
  name: string;
  level: ScoreLevel;
  nodes?: readonly string[];
}

const isTextList = (value: unknown): value is readonly string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '');

const isPrice = (value: unknown): value is ModelPrice => {
  const price = value as Partial<ModelPrice> | null;
  return (
    typeof price === 'object' &&
    price !== null &&
    [price.inputPerMTok, price.outputPerMTok].every(
      (n) => typeof n === 'number' && Number.isFinite(n) && n >= 0,
    )
  );
};

const isLlm = (value: unknown): value is Llm =>
  typeof value === 'function' ||
  (typeof value === 'object' &&
    value !== null &&
    typeof (value as { generate?: unknown }).generate === 'function');

const isScale = (value: unknown): value is readonly [number, number] => {
  if (!Array.isArray(value) || value.length !== 2) return false;
  const [min, max] = value as unknown[];
  return typeof min === 'number' && typeof max === 'number' && Number.isFinite(max) && min >= 0 && min < max;
};

const baseShape = {
  name: text().optional(),
  level: oneOf(['run', 'node'], "'run' or 'node'").optional(),
  nodes: option<readonly string[]>('a list of task or step names', isTextList).optional(),
};

const priceOption = option<ModelPrice>('{ inputPerMTok, outputPerMTok }, numbers ≥ 0', isPrice).optional();
const modelOption = option<Llm>('a model or a policy function', isLlm);

const schemas = {
  plain: z.strictObject(baseShape),
  text: z.strictObject({ ...baseShape, caseSensitive: flag().optional() }),
  llmJudge: z.strictObject({
    ...baseShape,
    model: modelOption,
    rubric: text(),
    scale: option<readonly [number, number]>('[min, max], 0 ≤ min < max', isScale).optional(),
    price: priceOption,
  }),
  crewaiTest: z.strictObject({ model: modelOption, name: text().optional(), price: priceOption }),
  similarity: z.strictObject({
    ...baseShape,
    embed: option<EmbeddingModel>(
      'an embedding model (an object with embed)',
      (v) => typeof (v as { embed?: unknown } | null)?.embed === 'function',
    ),
    price: priceOption,
  }),
};

/** The kinds of options a scorer takes, by their schema. */
export type OptionsKind = keyof typeof schemas;

/** `options` checked as scorer `kind`'s (`invalid_option` naming what is wrong), with its base read. */
export function checkScorerOptions<K extends OptionsKind>(
  kind: string,
  schema: K,
  options: unknown,
): { options: z.output<(typeof schemas)[K]>; base: ScorerBase } {
  const parsed = parseOptions(schemas[schema], kind, options ?? {});
  const { name, level, nodes } = parsed as Partial<ScorerBase>;
  if (nodes !== undefined && level !== 'node') {
    throw new InvalidOptionError(kind, 'nodes', "given with level: 'node'", nodes, {
      message: `${kind}: option "nodes" names tasks or steps, so it needs level: 'node'`,
    });
  }
  const base: ScorerBase = { name: name ?? kind, level: level ?? 'run' };
  if (nodes !== undefined) base.nodes = nodes;
  return { options: parsed, base };
}
