import { isStatecrewError, JudgeCallError, JudgeError } from '../errors.js';
import type { Verdict } from '../machines/loop.js';
import { callLlm, isModel } from '../models/call.js';
import { pricedUsage, usageOfCall } from '../models/usage.js';
import type { CallGate, Llm, ModelResponse, Usage } from '../types.js';
import { openingMessage } from './conversation.js';

const VERDICT = /^(yes|no)\b/i;

/**
 * Reads a judge's reply: YES or NO as its first word, in any case, after trimming ("No, don't stop"
 * is NO). Anything else — "maybe", "Yesterday", "I think yes" — is undefined.
 */
export function parseVerdict(reply: string): Verdict | undefined {
  const match = VERDICT.exec(reply.trim());
  return match ? ((match[1] as string).toLowerCase() as Verdict) : undefined;
}

/** What the judge actor needs from the run. */
export interface JudgeScope {
  judge: Llm;
  condition: string;
  now(): number;
  /** The final raw output of an iteration. */
  latest(iteration: number): string;
  onVerdict(iteration: number, verdict: Verdict, reply: string, usage: Usage): void;
  /** The run's budget and prices, which the judge's calls pass like the workers'. */
  gate: CallGate;
}

/** The prompt a loop's judge gets; the iteration's final output comes as its context. */
function judgePrompt(condition: string): string {
  return `You judge whether a condition holds for the latest output (given as context).\nCondition: ${condition}\nAnswer YES or NO first.`;
}

/**
 * The loop's judge call after `iteration`: resolves with the verdict, or rejects with
 * `judge_unparseable` (the reply starts with neither YES nor NO) or `judge_failed` (the judge threw;
 * its error is the `cause`). An abort rejects with the signal's reason.
 */
export async function judgeIteration(
  scope: JudgeScope,
  iteration: number,
  signal: AbortSignal,
): Promise<Verdict> {
  const prompt = judgePrompt(scope.condition);
  const context = scope.latest(iteration);
  let response: ModelResponse;
  try {
    scope.gate.beforeCall?.();
    response = await callLlm(scope.judge, {
      agent: 'Judge',
      system: '',
      prompt,
      context,
      messages: [{ role: 'user', content: openingMessage(prompt, context) }],
      tools: [],
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw isStatecrewError(error) ? error : new JudgeCallError(iteration, error);
  }
  const verdict = parseVerdict(response.text);
  if (verdict === undefined) throw new JudgeError(response.text, iteration);
  const { judge } = scope;
  const price = isModel(judge) && judge.id !== undefined ? scope.gate.priceOf?.(judge.id) : undefined;
  scope.onVerdict(iteration, verdict, response.text, pricedUsage(usageOfCall(response.usage), price));
  return verdict;
}
