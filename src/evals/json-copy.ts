import { describeThrown } from '../errors.js';

/** A value as JSON holds it, or why JSON cannot. */
export type JsonCopy = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * `value` as it reads back from JSON: a `Date` as its ISO text, `undefined` fields dropped (nothing at
 * all is `null`), what JSON cannot hold (a cycle, a bigint) said as a problem. A report holds only
 * such copies, so it survives `JSON.parse(JSON.stringify(report))` unchanged.
 */
export function jsonCopy(value: unknown): JsonCopy {
  try {
    const text = JSON.stringify(value);
    return { ok: true, value: text === undefined ? null : (JSON.parse(text) as unknown) };
  } catch (error) {
    return { ok: false, problem: describeThrown(error) };
  }
}
