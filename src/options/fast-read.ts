import type { z } from 'zod';

/** The schema of one options object (as `parseOptions` takes it). */
type OptionsSchema = z.ZodObject<z.core.$ZodShape, z.core.$strict>;

/** One option as the fast reader checks it: its key, its check, and what its absence means. */
interface FastField {
  readonly key: string;
  readonly accepts: (value: unknown) => unknown;
  readonly required: boolean;
  /** The `.default()` schema whose `defaultValue` fills the option in (a fresh copy, as zod gives it). */
  readonly defaulted: { readonly defaultValue: unknown } | undefined;
}

/** The fields of one options schema, with the set of its keys. */
interface FastSchema {
  readonly fields: readonly FastField[];
  readonly keys: ReadonlySet<string>;
}

/** A zod definition as the reader looks at it. */
interface Def {
  type: string;
  innerType?: z.ZodType;
  fn?: (value: unknown) => unknown;
  checks?: readonly unknown[];
  catchall?: z.ZodType;
}

const defOf = (schema: z.ZodType) => schema.def as unknown as Def;

/**
 * `schema` as the fast reader checks it, or undefined when one of its options is more than a check
 * (`z.custom`, bare, `.optional()` or `.default()`): such a schema is always parsed by zod.
 */
function compile(schema: OptionsSchema): FastSchema | undefined {
  const catchall = defOf(schema).catchall;
  if (catchall === undefined || defOf(catchall).type !== 'never') return undefined;
  if (Object.getOwnPropertySymbols(schema.shape).length > 0) return undefined;
  const fields: FastField[] = [];
  for (const [key, option] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const field = compileField(key, option);
    if (field === undefined || key === '__proto__') return undefined;
    fields.push(field);
  }
  return { fields, keys: new Set(fields.map((f) => f.key)) };
}

/** One option of the shapes the reader knows, or undefined. */
function compileField(key: string, option: z.ZodType): FastField | undefined {
  let core = defOf(option);
  let required = true;
  let defaulted: FastField['defaulted'];
  if (core.type === 'optional' || core.type === 'default') {
    required = false;
    if (core.type === 'default') defaulted = core as unknown as { defaultValue: unknown };
    core = defOf(core.innerType as z.ZodType);
  }
  // A custom check alone: `z.custom(fn)` is its own and only check.
  if (core.type !== 'custom' || typeof core.fn !== 'function' || (core.checks?.length ?? 0) > 0) {
    return undefined;
  }
  return { key, accepts: core.fn, required, defaulted };
}

const compiled = new WeakMap<OptionsSchema, FastSchema | null>();

/** The fast reader's view of `schema`, made once; null when zod must parse it. */
function fastSchemaOf(schema: OptionsSchema): FastSchema | null {
  let known = compiled.get(schema);
  if (known === undefined) {
    known = compile(schema) ?? null;
    compiled.set(schema, known);
  }
  return known;
}

/**
 * `options` read against `schema` as zod's parse reads it when every option is accepted — the same
 * keys, in the schema's order, the same values, each default a fresh copy — without zod's two
 * objects per option: a crew of 100,000 tasks leaves millions fewer objects to collect. Undefined
 * when anything is refused or unusual (an unknown key, a refused value, not a plain object, a schema
 * of other options): zod's parse then decides, and says what is wrong.
 */
export function fastRead(schema: OptionsSchema, options: unknown): Record<string, unknown> | undefined {
  const known = fastSchemaOf(schema);
  if (known === null || typeof options !== 'object' || options === null || Array.isArray(options)) {
    return undefined;
  }
  const input = options as Record<string, unknown>;
  for (const key in input) if (!known.keys.has(key)) return undefined;
  const out: Record<string, unknown> = {};
  for (const field of known.fields) {
    const value = input[field.key];
    if (value !== undefined) {
      if (field.accepts(value) !== true) return undefined;
      out[field.key] = value;
    } else if (field.defaulted !== undefined) {
      out[field.key] = field.defaulted.defaultValue;
    } else if (field.key in input) {
      // Given as undefined: an optional option keeps its key; a required one is checked with it.
      if (field.required && field.accepts(value) !== true) return undefined;
      out[field.key] = undefined;
    } else if (field.required) {
      return undefined;
    }
  }
  return out;
}
