/** Text helpers of the scorers: values as comparable JSON, and replies quoted briefly. */

/** `value` with every object's keys sorted, recursively: what {@link stableJson} writes. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    sorted[key] = sortedKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

/** `value` as JSON with its objects' keys sorted, so equal values write the same text. */
export function stableJson(value: unknown): string {
  if (value === undefined) return 'undefined';
  return JSON.stringify(sortedKeys(value)) ?? String(value);
}

/** `value` as text: a string as itself, anything else as JSON with sorted keys. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : stableJson(value);
}

/** `text` trimmed and cut to `max` characters (`…` marking a cut), in double quotes. */
export function quote(text: string, max = 200): string {
  const trimmed = text.trim();
  return JSON.stringify(trimmed.length > max ? `${trimmed.slice(0, max)}…` : trimmed);
}

/** `text` parsed as JSON, or why it is not JSON. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
