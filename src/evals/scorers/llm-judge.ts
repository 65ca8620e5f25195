import type { ScoreInput, Scorer } from '../types.js';
import { type JudgeQuestion, judgeScorer } from './judge.js';
import { checkScorerOptions, type LlmJudgeOptions } from './options.js';
import { textOf } from './text.js';

/** The task the node was, when it is a crew's task: what it was asked and by whom. */
function taskLines(input: ScoreInput): string[] {
  const { task } = input;
  if (task === undefined) return [];
  return [
    `Task: ${task.description}`,
    `Task's expected output: ${task.expectedOutput}`,
    `Agent: ${task.agent}`,
    '',
  ];
}

/** The judge's question about one output: the rubric, the inputs, what was expected, the output. */
function judgeQuestion(rubric: string, scale: readonly [number, number], input: ScoreInput): JudgeQuestion {
  const [min, max] = scale;
  const lines = [
    `Score the output below against this rubric:\n${rubric}`,
    '',
    `Inputs: ${JSON.stringify(input.inputs)}`,
    '',
    ...taskLines(input),
    ...(input.expected === undefined ? [] : [`Expected output:\n${textOf(input.expected)}`, '']),
    `Output to judge:\n${input.text}`,
    '',
    `Reply with a score from ${min} to ${max} as the first number you write, then the reason for it.`,
  ];
  return {
    agent: 'Judge',
    system: 'You are an impartial judge of the outputs of an AI system.',
    prompt: lines.join('\n'),
  };
}

/**
 * Asks a judge model (or policy) to score each output against `rubric` on `scale` (default 1–10):
 * the first number of its reply is the score's `value`, `value / max` the score, the text after it
 * the reason. Its calls pass the evaluation's budget and count in the case's usage (`judge`). A reply
 * without a number, or one off the scale, is a `scorer_failed` error quoting the reply.
 *
 * @example
 * llmJudge({ model: judge, rubric: 'Is the summary faithful to the article?', scale: [1, 5] })
 */
export function llmJudge(options: LlmJudgeOptions): Scorer {
  const { options: checked, base } = checkScorerOptions('llmJudge', 'llmJudge', options);
  const scale = checked.scale ?? ([1, 10] as const);
  return judgeScorer(base, {
    model: checked.model,
    scale,
    price: checked.price,
    ask: (input) => judgeQuestion(checked.rubric, scale, input),
  });
}
