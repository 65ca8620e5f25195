import type { ZodType } from 'zod';
import { describeThrown, OutputValidationError } from '../errors.js';

const FENCE = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/;

/**
 * Parses a model's text as JSON (a surrounding code fence is allowed) and validates it against
 * `schema`. Throws `output_invalid` with the issue paths when either step fails.
 */
export function parseStructured(task: string, raw: string, schema: ZodType): unknown {
  const trimmed = raw.trim();
  const body = FENCE.exec(trimmed)?.[1] ?? trimmed;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new OutputValidationError(task, [{ path: [], message: `not JSON (${describeThrown(error)})` }]);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new OutputValidationError(task, parsed.error.issues);
  return parsed.data;
}
