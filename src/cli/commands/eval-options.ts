import { InvalidOptionError, UnknownProviderError } from '../../errors.js';
import type { EvalCaseResult } from '../../evals/types.js';
import { isProviderRegistered, ProviderModel, providerPackage } from '../../models/providers.js';
import type { Model } from '../../types.js';
import { providerSpecOf } from '../../yaml/llm-spec.js';

/** The judge `statecrew test` asks when no `--judge` is given: CrewAI's default. */
export const DEFAULT_JUDGE = 'openai/gpt-4o-mini';

/**
 * The judge a `--judge` value names, read as a YAML crew's `llm:` is (`openai/gpt-4o-mini`,
 * `openai:gpt-4o-mini`, `gpt-4o-mini`); `invalid_option` for a value that names no model,
 * `unknown_provider` when its provider is not registered.
 */
export function judgeModel(where: string, text: string): Model {
  const spec = providerSpecOf(text);
  if (spec === undefined) {
    throw new InvalidOptionError(
      where,
      '--judge',
      'a model as a provider string, like openai/gpt-4o-mini or anthropic:claude-3-5-haiku-latest',
      text,
    );
  }
  if (!isProviderRegistered(spec.provider)) {
    throw new UnknownProviderError(spec.spec, spec.provider, providerPackage(spec.provider));
  }
  return new ProviderModel(spec.spec, '--judge');
}

/** A whole number > 0 given as text, for option `option` of command `where` (`invalid_option` else). */
export function wholeNumber(where: string, option: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidOptionError(where, option, 'a whole number > 0', text);
  }
  return value;
}

/** A number from `min` to `max` given as text, for option `option` of command `where` (`invalid_option` else). */
export function numberWithin(where: string, option: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw new InvalidOptionError(where, option, `a number from ${min} to ${max}`, text);
  }
  return value;
}

/** A run as the progress on stderr tells it: `<command>: case 0 run 2: completed in 1.2 s`. */
export function caseLine(command: string, result: EvalCaseResult): string {
  const seconds = (result.timeMs / 1000).toFixed(1);
  const error = result.error === undefined ? '' : ` — ${result.error.message}`;
  return `${command}: case ${result.caseId} run ${result.iteration}: ${result.status} in ${seconds} s${error}\n`;
}
