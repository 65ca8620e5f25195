import type { ZodType } from 'zod';
import { parseStructured } from '../../actors/structured-output.js';
import { InvalidOptionError, StatecrewError } from '../../errors.js';
import { encodeRunValue } from '../durable/codec.js';
import type { StoredTaskResult } from './crew-store.js';

/** What an edit needs of the task a kept node runs: its name, and its `outputSchema` if it has one. */
export interface EditedTask {
  name: string;
  outputSchema: ZodType | undefined;
}

/** The output an edit gives a kept task: its raw text, and its structured output when it has one. */
interface EditedOutput {
  raw: string;
  structured?: unknown;
}

/**
 * Kept result `result` with its output replaced by `edit` (`crew.fork`'s `outputs[nodeId]`): a string
 * is the raw text, parsed as the task's structured output when it has an `outputSchema`; any other
 * value is the structured output, checked against that schema, with its JSON as the raw text. An edit
 * that does not fit the task, or that no store can keep, is refused with `invalid_option` naming the
 * node.
 */
export function editedResult(
  where: string,
  result: StoredTaskResult,
  task: EditedTask,
  edit: unknown,
): StoredTaskResult {
  const key = `outputs.${result.nodeId}`;
  const output = editedOutput(where, key, task, edit);
  if ('structured' in output) {
    try {
      encodeRunValue(output.structured);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new InvalidOptionError(where, key, `a value a store can keep (${why})`, edit);
    }
  }
  const { structured: _old, ...rest } = result;
  return { ...rest, ...output };
}

/** The raw text and structured output `edit` makes for `task`. */
function editedOutput(where: string, key: string, task: EditedTask, edit: unknown): EditedOutput {
  const schema = task.outputSchema;
  if (typeof edit === 'string') {
    if (schema === undefined) return { raw: edit };
    try {
      return { raw: edit, structured: parseStructured(task.name, edit, schema) };
    } catch (error) {
      const why = error instanceof StatecrewError ? error.message : String(error);
      throw new InvalidOptionError(where, key, `text that parses as the task's outputSchema (${why})`, edit);
    }
  }
  if (edit === undefined) throw new InvalidOptionError(where, key, 'raw text or a structured value', edit);
  if (schema === undefined) return { raw: jsonText(edit), structured: edit };
  const parsed = schema.safeParse(edit);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new InvalidOptionError(where, key, `a value of the task's outputSchema (${why})`, edit);
  }
  return { raw: jsonText(parsed.data), structured: parsed.data };
}

/** A structured value's JSON text (what a model would have answered), or its string form. */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
