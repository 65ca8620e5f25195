import type { ScoreInput, Scorer } from '../types.js';
import { type JudgeQuestion, judgeScorer } from './judge.js';
import { type CrewaiTestScorerOptions, checkScorerOptions } from './options.js';
import { textOf } from './text.js';

/** CrewAI's evaluator agent's role, and its goal as its system message says it. */
const EVALUATOR = 'Task Execution Evaluator';
const EVALUATOR_GOAL =
  'Your goal is to evaluate the performance of the agents in the crew based on the tasks they have performed using score from 1 to 10 evaluating on completion, quality, and overall performance.';
const INSTRUCTION =
  'Based on the task description and the expected output, compare and evaluate the performance of the agents in the crew based on the Task Output they have performed using score from 1 to 10 evaluating on completion, quality, and overall performance.';

/** CrewAI's evaluation task for one task's output (a flow step's: its name and expected output). */
function crewaiQuestion(input: ScoreInput): JudgeQuestion {
  const { task } = input;
  const expected = task?.expectedOutput ?? (input.expected === undefined ? 'None' : textOf(input.expected));
  const prompt = [
    INSTRUCTION,
    `task_description: ${task?.description ?? input.node ?? 'None'}`,
    `task_expected_output: ${expected}`,
    `agent: ${task?.agent ?? 'None'}`,
    `Task Output: ${input.text}`,
    '',
    'Expected output: Evaluation Score from 1 to 10 based on the performance of the agents on the tasks.',
    'Reply with the score first, then the reason for it.',
  ].join('\n');
  return { agent: EVALUATOR, system: `You are ${EVALUATOR}. ${EVALUATOR_GOAL}`, prompt };
}

/**
 * CrewAI's `crewai test` judge: each task's output scored 1–10 on completion, quality and overall
 * performance against its description and expected output (named `quality`, `level: 'node'`). The
 * judge may reply with a number first or, as CrewAI's does, with JSON: `{ "quality": 9 }`.
 *
 * @example
 * evaluate({ target: crew, dataset, scorers: [crewaiTestScorer({ model: judge })], iterations: 3 });
 */
export function crewaiTestScorer(options: CrewaiTestScorerOptions): Scorer {
  const { options: checked } = checkScorerOptions('crewaiTestScorer', 'crewaiTest', options);
  const base = { name: checked.name ?? 'quality', level: 'node' as const };
  return judgeScorer(base, {
    model: checked.model,
    scale: [1, 10],
    price: checked.price,
    ask: crewaiQuestion,
  });
}
