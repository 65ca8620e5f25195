import { failedCallUsage, pricedUsage } from '../../models/usage.js';
import type { EmbeddingModel, ModelPrice, Usage } from '../../types.js';
import type { Score, ScoreInput, Scorer } from '../types.js';
import { checkScorerOptions, type SimilarityOptions } from './options.js';
import { buildScorer, type CannotScore } from './scorer-base.js';
import { textOf } from './text.js';

type Embedded = Awaited<ReturnType<EmbeddingModel['embed']>>;

const isVector = (value: unknown): value is number[] =>
  Array.isArray(value) && value.length > 0 && value.every((n) => typeof n === 'number' && Number.isFinite(n));

/** The cosine of two vectors of one length; undefined when either is all zeros. */
function cosine(a: readonly number[], b: readonly number[]): number | undefined {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  a.forEach((x, i) => {
    const y = b[i] as number;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  });
  return normA === 0 || normB === 0 ? undefined : dot / Math.sqrt(normA * normB);
}

/** The embedding call's usage: its tokens as input, one call unless it says. */
function usageOf(embedded: Embedded, price: ModelPrice | undefined): Usage {
  const tokens = embedded.usage?.tokens ?? 0;
  const usage = {
    inputTokens: tokens,
    outputTokens: 0,
    totalTokens: tokens,
    calls: embedded.usage?.calls ?? 1,
  };
  return pricedUsage(usage, price);
}

async function embedBoth(embed: EmbeddingModel, texts: string[], input: ScoreInput): Promise<Embedded> {
  const { signal } = input;
  signal.throwIfAborted();
  input.beforeCall();
  try {
    return await embed.embed(texts, { signal });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    input.spend(failedCallUsage());
    throw error;
  }
}

async function scoreSimilarity(
  options: { embed: EmbeddingModel; price?: ModelPrice | undefined },
  input: ScoreInput,
  cannot: CannotScore,
): Promise<Score> {
  if (input.expected === undefined) throw cannot('no expected output to compare with');
  const embedded = await embedBoth(options.embed, [input.text, textOf(input.expected)], input);
  input.spend(usageOf(embedded, options.price));
  if (input.signal.aborted) throw input.signal.reason;
  const [output, expected] = Array.isArray(embedded?.embeddings) ? embedded.embeddings : [];
  if (!isVector(output) || !isVector(expected) || output.length !== expected.length) {
    throw cannot('the embedding model did not give two vectors of numbers of one length');
  }
  const value = cosine(output, expected);
  if (value === undefined) throw cannot('an embedding is all zeros: no cosine');
  return { score: Math.min(1, Math.max(0, value)), value, reason: `cosine similarity ${value.toFixed(3)}` };
}

/**
 * The cosine similarity of the output's and the expected text's embeddings (one `embed` call for
 * both), clamped to 0–1; `value` is the cosine itself. The call's usage counts as the judge's. No
 * `expected` is a `scorer_failed` error.
 *
 * @example
 * similarity({ embed: openAiEmbeddings, name: 'close to the reference' })
 */
export function similarity(options: SimilarityOptions): Scorer {
  const { options: checked, base } = checkScorerOptions('similarity', 'similarity', options);
  return buildScorer(base, (input, cannot) => scoreSimilarity(checked, input, cannot));
}
