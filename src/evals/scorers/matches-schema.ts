import type { ZodType, z } from 'zod';
import { InvalidOptionError } from '../../errors.js';
import type { Score, ScoreInput, Scorer } from '../types.js';
import { checkScorerOptions, type ScorerOptions } from './options.js';
import { buildScorer } from './scorer-base.js';
import { parseJson, quote } from './text.js';

/** zod's issues as `path: message`, `;`-separated (`(root)` for the value itself). */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map(
      (issue) => `${issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.')}: ${issue.message}`,
    )
    .join('; ');
}

async function scoreSchema(schema: ZodType, input: ScoreInput): Promise<Score> {
  const { output } = input;
  const parsed = typeof output === 'string' ? parseJson(output) : { ok: true as const, value: output };
  const checked = parsed.ok ? await schema.safeParseAsync(parsed.value) : undefined;
  if (checked?.success) return { score: 1, reason: 'matches the schema' };
  // Text the schema takes as it is (a `z.string()`, say) matches too.
  if (typeof output === 'string' && (await schema.safeParseAsync(output)).success) {
    return { score: 1, reason: 'matches the schema' };
  }
  if (checked === undefined)
    return { score: 0, reason: `the output is not JSON: ${quote(output as string, 100)}` };
  return { score: 0, reason: describeIssues(checked.error.issues) };
}

/**
 * 1 when the output is what `schema` (zod) accepts, else 0 with zod's issues as the reason
 * (`path: message`). An output that is text is parsed as JSON first; text that is not JSON scores 0,
 * unless the schema takes the text itself.
 *
 * @example
 * matchesSchema(z.object({ title: z.string(), tags: z.array(z.string()) }))
 */
export function matchesSchema(schema: ZodType, options: ScorerOptions = {}): Scorer {
  if (typeof (schema as { safeParseAsync?: unknown } | null)?.safeParseAsync !== 'function') {
    throw new InvalidOptionError('matchesSchema', 'schema', 'a zod schema', schema);
  }
  const { base } = checkScorerOptions('matchesSchema', 'plain', options);
  return buildScorer(base, (input) => scoreSchema(schema, input));
}
