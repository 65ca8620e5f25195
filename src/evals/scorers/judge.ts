import { callLlm } from '../../models/call.js';
import { failedCallUsage, pricedUsage, usageOfCall } from '../../models/usage.js';
import type { Llm, ModelPrice, ModelResponse } from '../../types.js';
import type { Score, ScoreInput, Scorer } from '../types.js';
import { readJudgeReply } from './judge-reply.js';
import type { ScorerBase } from './options.js';
import { buildScorer, type CannotScore } from './scorer-base.js';
import { quote } from './text.js';

/** What the judge is asked about one output: as whom, its system message and the prompt. */
export interface JudgeQuestion {
  agent: string;
  system: string;
  prompt: string;
}

/** A judge scorer: who judges, on what scale, and how it is asked. */
export interface JudgeSpec {
  model: Llm;
  scale: readonly [number, number];
  price?: ModelPrice | undefined;
  ask(input: ScoreInput): JudgeQuestion;
}

/** One call of the judge: `beforeCall` first, its usage (a failed call's too) spent after. */
async function callJudge(
  spec: JudgeSpec,
  question: JudgeQuestion,
  input: ScoreInput,
): Promise<ModelResponse> {
  const { signal } = input;
  signal.throwIfAborted();
  input.beforeCall();
  let response: ModelResponse;
  try {
    response = await callLlm(spec.model, {
      ...question,
      context: '',
      messages: [{ role: 'user', content: question.prompt }],
      tools: [],
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    input.spend(failedCallUsage());
    throw error;
  }
  input.spend(pricedUsage(usageOfCall(response.usage), spec.price));
  if (signal.aborted) throw signal.reason;
  return response;
}

/** The judge's reply as a score: its value on the scale over the scale's max. */
function scoreOfReply(reply: string, scale: readonly [number, number], cannot: CannotScore): Score {
  const [min, max] = scale;
  const read = readJudgeReply(reply);
  if (read === undefined)
    throw cannot(`the judge's reply holds no score from ${min} to ${max}: ${quote(reply)}`);
  if (read.value < min || read.value > max) {
    throw cannot(`the judge's score ${read.value} is outside its scale ${min} to ${max}: ${quote(reply)}`);
  }
  const score: Score = { score: read.value / max, value: read.value };
  if (read.reason !== '') score.reason = read.reason;
  return score;
}

/** A scorer that asks `spec`'s judge about each output and reads the score from its reply. */
export function judgeScorer(base: ScorerBase, spec: JudgeSpec): Scorer {
  return buildScorer(base, async (input, cannot) => {
    const response = await callJudge(spec, spec.ask(input), input);
    return scoreOfReply(response.text, spec.scale, cannot);
  });
}
