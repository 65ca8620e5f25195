import { describeThrown, InvalidDatasetError } from '../errors.js';
import type { EvalCase } from './types.js';

/** A case as read, not checked yet, with where it was: `case #2`, `cases.jsonl line 3`. */
export interface PlacedCase {
  value: unknown;
  where: string;
}

/** Whether `value` is a plain object (`{}` or `Object.create(null)`), not an array, a class instance or null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Each case checked and copied with its known fields: `invalid_dataset` naming where the first wrong
 * one is; for none at all, naming `source`; for an id used twice, both places.
 */
export function checkCases(placed: readonly PlacedCase[], source: string): EvalCase[] {
  if (placed.length === 0) throw new InvalidDatasetError(source, 'the dataset holds no case');
  const cases = placed.map(({ value, where }) => checkCase(value, where));
  const seen = new Map<string, string>();
  cases.forEach((c, index) => {
    if (c.id === undefined) return;
    const first = seen.get(c.id);
    const where = placed[index]?.where ?? `case #${index}`;
    if (first !== undefined) throw new InvalidDatasetError(where, `id "${c.id}" is also the id of ${first}`);
    seen.set(c.id, where);
  });
  return cases;
}

/** One case, checked: `{ inputs, expected?, expectedOutputs?, id? }`. */
function checkCase(value: unknown, where: string): EvalCase {
  if (!isPlainObject(value)) {
    throw new InvalidDatasetError(
      where,
      `a case is an object { inputs, expected? }, got ${describeThrown(value)}`,
    );
  }
  const { inputs, expected, expectedOutputs, id } = value;
  if (!isPlainObject(inputs)) {
    throw new InvalidDatasetError(where, `"inputs" must be an object, got ${describeThrown(inputs)}`);
  }
  if (expectedOutputs !== undefined && !isPlainObject(expectedOutputs)) {
    throw new InvalidDatasetError(
      where,
      `"expectedOutputs" must be an object of outputs by task or step name, got ${describeThrown(expectedOutputs)}`,
    );
  }
  if (id !== undefined && (typeof id !== 'string' || id.trim() === '')) {
    throw new InvalidDatasetError(where, `"id" must be a non-empty text, got ${describeThrown(id)}`);
  }
  return {
    inputs,
    ...(id === undefined ? {} : { id }),
    ...('expected' in value && expected !== undefined ? { expected } : {}),
    ...(expectedOutputs === undefined ? {} : { expectedOutputs }),
  };
}
