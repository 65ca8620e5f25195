import { InvalidInputsError } from '../../errors.js';

const PLACEHOLDER = /\{([^{}]+)\}/g;

/** A placeholder's name, as a pattern: a letter or `_`, then letters, digits or `_`. */
export const PLACEHOLDER_NAME = '[A-Za-z_][A-Za-z0-9_]*';

/**
 * Replaces each `{key}` whose key is an own key of `inputs` with the value: a string, number,
 * boolean, `null` or `undefined` as `String(value)`, a plain object or an array as one line of JSON
 * with a space after each `:` and `,` (`{"name": "Alice", "skills": ["AI"]}`), as CrewAI shows a
 * dict or a list. Everything else — unknown placeholders, JSON examples, stray braces — is left
 * exactly as it was. A value no placeholder can show (a `Set`, a `Map`, a `Date`, a class instance,
 * a function, a symbol, a circular reference), the placeholder's or one inside it, throws
 * `invalid_inputs` naming the key and what it holds.
 *
 * @example
 * interpolate('Research {topic} as {"format": "json"}', { topic: 'AI' });
 * // 'Research AI as {"format": "json"}'
 * interpolate('Summarize {people}', { people: [{ name: 'Alice' }] });
 * // 'Summarize [{"name": "Alice"}]'
 */
export function interpolate(template: string, inputs: Readonly<Record<string, unknown>>): string {
  if (!template.includes('{')) return template;
  return template.replace(PLACEHOLDER, (whole, key: string) => {
    if (!Object.hasOwn(inputs, key)) return whole;
    const value = inputs[key];
    const found = unshowableIn(value, `inputs.${key}`, []);
    if (found !== undefined) throw InvalidInputsError.unshowable('interpolate', key, found.path, found.type);
    return typeof value === 'object' && value !== null ? asJson(value) : String(value);
  });
}

/**
 * Refuses, with `invalid_inputs` naming the key, the path and the type, inputs holding a value no
 * `{placeholder}` can show — any input, used or not, as CrewAI checks them all when a crew starts.
 */
export function checkShowableInputs(where: string, inputs: Readonly<Record<string, unknown>>): void {
  for (const key of Object.keys(inputs)) {
    const found = unshowableIn(inputs[key], `inputs.${key}`, []);
    if (found !== undefined) throw InvalidInputsError.unshowable(where, key, found.path, found.type);
  }
}

/** Where in `value` (at `path`) the first value no placeholder can show sits, and what it is. */
function unshowableIn(
  value: unknown,
  path: string,
  around: object[],
): { path: string; type: string } | undefined {
  if (typeof value !== 'object' || value === null)
    return isShowable(value) ? undefined : { path, type: typeOf(value) };
  if (around.includes(value)) return { path, type: 'a circular reference' };
  const entries = Array.isArray(value)
    ? Array.from(value, (item, i) => [`[${i}]`, item] as const)
    : isPlainObject(value)
      ? Object.entries(value).map(([k, item]) => [`.${k}`, item] as const)
      : undefined;
  if (entries === undefined) return { path, type: typeOf(value) };
  around.push(value);
  for (const [step, item] of entries) {
    const found = unshowableIn(item, `${path}${step}`, around);
    if (found !== undefined) return found;
  }
  around.pop();
  return undefined;
}

/** A value shown as it is: a string, number, bigint, boolean, `null` or `undefined`. */
function isShowable(value: unknown): boolean {
  const type = typeof value;
  return type !== 'function' && type !== 'symbol' && (type !== 'object' || value === null);
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** What a value no placeholder can show is, for a message: `a Set`, `a Date`, `a function`. */
function typeOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return `a ${typeof value}`;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? `a ${name}` : 'a class instance';
}

/**
 * A checked value as one line of JSON, a space after each `:` and `,` (Python's `json.dumps`
 * layout): what is absent from JSON (`undefined` in an object) is left out, `undefined`, `NaN` and
 * `±Infinity` in an array are `null`, and a bigint is its digits.
 */
function asJson(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${Array.from(value, asJson).join(', ')}]`;
  const fields = Object.entries(value as object).filter(([, item]) => item !== undefined);
  return `{${fields.map(([key, item]) => `${JSON.stringify(key)}: ${asJson(item)}`).join(', ')}}`;
}
