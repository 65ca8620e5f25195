import type { z } from 'zod';
import { InvalidOptionError } from '../errors.js';
import { closestName } from './closest-name.js';
import { fastRead } from './fast-read.js';
import { ruleOf } from './option.js';

/** The schema of one options object: a strict zod object whose every field is an option. */
export type OptionsSchema = z.ZodObject<z.core.$ZodShape, z.core.$strict>;

/**
 * Who an `invalid_option` names (`Crew "research"`), or who it names for each option: an agent's
 * own `role` is named by `Agent` alone, since a wrong role cannot name it.
 */
export type OptionsWhere = string | ((option: string) => string);

/**
 * `options` checked against `schema`, with its defaults filled in. A key it does not know is
 * refused first — `invalid_option` naming it and the known key closest to it (a typo, a CrewAI
 * spelling) — then the first option whose value it refuses, in the schema's order. Values are never
 * copied: a store, a signal or a task list is the very object given. Options that every check
 * accepts are read without zod's objects per option (`fastRead`), to the same result.
 */
export function parseOptions<S extends OptionsSchema>(
  schema: S,
  where: OptionsWhere,
  options: unknown,
): z.output<S> {
  const fast = fastRead(schema, options);
  if (fast !== undefined) return fast as z.output<S>;
  const parsed = schema.safeParse(options);
  if (parsed.success) return parsed.data;
  throw optionsError(schema, where, options, parsed.error.issues);
}

/** The error of the first issue that matters: an unknown key, else the first value refused. */
function optionsError(
  schema: OptionsSchema,
  where: OptionsWhere,
  options: unknown,
  issues: readonly z.core.$ZodIssue[],
): InvalidOptionError {
  const whereOf = typeof where === 'string' ? () => where : where;
  const names = Object.keys(schema.shape);
  const unknown = issues.find((issue) => issue.code === 'unrecognized_keys');
  const key = unknown?.keys[0];
  if (key !== undefined) return InvalidOptionError.unknown(whereOf(key), key, names, closestName(key, names));
  const option = issues[0]?.path[0];
  if (typeof option !== 'string')
    return new InvalidOptionError(whereOf('options'), 'options', 'an object', options);
  const value = (options as Record<string, unknown>)[option];
  const rule = ruleOf(schema.shape[option] as z.ZodType | undefined);
  rule?.refuse?.(whereOf(option), value);
  return new InvalidOptionError(whereOf(option), option, rule?.expected ?? 'valid', value);
}
