import { parseVerdict } from '../../actors/judge.js';
import { InvalidOptionError } from '../../errors.js';
import type { Llm } from '../../types.js';
import type { Guardrail } from './task.js';

/** Options of {@link modelGuardrail}. */
export interface ModelGuardrailOptions {
  /** The model that judges. @default the task's agent's model */
  llm?: Llm | undefined;
}

/** The instruction the judging model gets before the condition, the task and the output. */
const JUDGE_SYSTEM =
  'You check the output of a task against a condition. Answer YES if the output meets the condition. ' +
  'Otherwise answer NO, then say in one or two sentences what the output must change to meet it.';

/**
 * A guardrail a model judges (CrewAI's text guardrail, `guardrail: "..."` in `tasks.yaml`): the task's
 * agent's model (or `llm`) is asked whether the output meets `condition`; YES accepts it, NO rejects
 * it with the model's reason, which the next attempt is told. An answer that is neither rejects it,
 * saying so. Its calls count in the run's usage and budget under the task.
 *
 * @example
 * new Task({ description: 'Summarize {topic}', agent, guardrail: modelGuardrail('The summary is under 200 words') });
 */
export function modelGuardrail(condition: string, options: ModelGuardrailOptions = {}): Guardrail {
  if (typeof condition !== 'string' || condition.trim() === '') {
    throw new InvalidOptionError('modelGuardrail', 'condition', 'a non-empty string', condition);
  }
  return async (output, context) => {
    const question = [
      `Condition: ${condition.trim()}`,
      `Task: ${output.description.trim()}`,
      'Output:',
      output.raw,
    ].join('\n');
    const reply = await context.ask(question, { llm: options.llm, system: JUDGE_SYSTEM });
    const verdict = parseVerdict(reply);
    if (verdict === 'yes') return true;
    if (verdict === 'no') {
      const reason = reply.trim().replace(/^no\b[\s,.:;!-]*/i, '');
      return { ok: false, reason: reason === '' ? `the output does not meet: ${condition.trim()}` : reason };
    }
    return {
      ok: false,
      reason: `the guardrail's model answered neither YES nor NO: "${reply.trim().slice(0, 200)}"`,
    };
  };
}
