import { toJson } from '../stores/store.js';

/**
 * `value` as plain JSON data, so that a view survives `JSON.stringify` and holds no functions, class
 * instances or cycles: what JSON cannot carry is dropped; what cannot be serialised at all becomes
 * its description.
 */
export function plain(value: unknown): unknown {
  try {
    return toJson(value);
  } catch {
    return String(value);
  }
}

/** A value as the panel shows it: a string as is, anything else as indented JSON. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
