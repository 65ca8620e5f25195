import type { z } from 'zod';
import { option } from './option.js';

/** An integer ≥ `min`. */
export function integer(min: number): z.ZodCustom<number, number> {
  return option(`an integer ≥ ${min}`, (v) => typeof v === 'number' && Number.isInteger(v) && v >= min);
}

/** A finite number > 0 (a duration, a rate). */
export function positive(): z.ZodCustom<number, number> {
  return option('a finite number > 0', (v) => typeof v === 'number' && Number.isFinite(v) && v > 0);
}

/** A string that is not blank. */
export function text(): z.ZodCustom<string, string> {
  return option('a non-empty string', (v) => typeof v === 'string' && v.trim() !== '');
}

/** `true` or `false`, said as `expected`. */
export function flag(expected = 'true or false'): z.ZodCustom<boolean, boolean> {
  return option(expected, (v) => typeof v === 'boolean');
}

/** A function of type `F`. */
export function fn<F>(expected = 'a function'): z.ZodCustom<F, F> {
  return option<F>(expected, (v) => typeof v === 'function');
}

/** One of `values`, said as `expected`. */
export function oneOf<const V extends readonly string[]>(
  values: V,
  expected: string,
): z.ZodCustom<V[number], V[number]> {
  return option<V[number]>(expected, (v) => values.includes(v as string));
}
