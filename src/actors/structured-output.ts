import type { ZodType } from 'zod';
import { describeThrown, OutputValidationError } from '../errors.js';

/** A fenced code block (```json or ```), anywhere in the text: its body. */
const FENCE = /```(?:json)?[ \t]*\n([\s\S]*?)\n?```/;

/** The JSON a model's text holds: the whole text, else the first fenced block in it (prose around it is fine). */
function readJson(text: string): unknown {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch (error) {
    const fenced = FENCE.exec(trimmed)?.[1];
    if (fenced === undefined) throw error;
    return JSON.parse(fenced);
  }
}

/**
 * Parses a model's text as JSON (the whole text, or a fenced block in it) and validates it against
 * `schema`. Throws `output_invalid` with the issue paths when either step fails.
 */
export function parseStructured(task: string, raw: string, schema: ZodType): unknown {
  let json: unknown;
  try {
    json = readJson(raw);
  } catch (error) {
    throw new OutputValidationError(task, [{ path: [], message: `not JSON (${describeThrown(error)})` }]);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new OutputValidationError(task, parsed.error.issues);
  return parsed.data;
}
