import type { JsonValue } from '../stores/store.js';

/** The plain-JSON form of a value the run value codec keeps, for a response body. */
function plain(value: unknown, ancestors: readonly object[]): JsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return undefined;
  // A reference back to an object that holds it: JSON has no way to say so.
  if (ancestors.includes(value)) return null;
  const inside = [...ancestors, value];
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof RegExp) return String(value);
  if (value instanceof Map)
    return [...value].map(([k, v]) => [plain(k, inside) ?? null, plain(v, inside) ?? null]);
  if (value instanceof Set) return [...value].map((v) => plain(v, inside) ?? null);
  if (Array.isArray(value)) return value.map((v) => plain(v, inside) ?? null);
  const { toJSON } = value as { toJSON?: unknown };
  if (typeof toJSON === 'function') return plain(toJSON.call(value), inside);
  const object: Record<string, JsonValue> = {};
  for (const [key, entry] of Object.entries(value)) {
    const json = plain(entry, inside);
    if (json !== undefined) object[key] = json;
  }
  return object;
}

/**
 * `value` as plain JSON for a response body, never throwing: what the run value codec keeps beyond
 * JSON is written the way a client reads it without the codec — a `Date` as its ISO 8601 text, a
 * `Map` as its `[key, value]` entries, a `Set` as an array, a `BigInt` as its decimal text, a
 * `RegExp` as its `/source/flags`, `NaN` and `±Infinity` as `null`; an object with `toJSON` as
 * what it gives, `undefined` fields are left out and a reference back to an enclosing object is `null`.
 */
export function jsonSafe(value: unknown): JsonValue {
  return plain(value, []) ?? null;
}
