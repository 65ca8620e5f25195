import { z } from 'zod';

/** How an option's refused value is reported. */
export interface OptionRule {
  /** What the option takes, as its `invalid_option` message says it: `an integer ≥ 1`. */
  readonly expected: string;
  /**
   * Throws the option's own error for a value it refuses, where `expected` alone would not say what
   * is wrong: a nested key (`budget.maxTokens`), or an error of another code.
   */
  readonly refuse?: ((where: string, value: unknown) => unknown) | undefined;
}

/** Each option schema's rule; weak, so a schema is all that keeps its rule. */
const rules = new WeakMap<object, OptionRule>();

/** `schema`, whose refused values are reported by `rule`. */
export function withRule<T extends z.ZodType>(schema: T, rule: OptionRule): T {
  rules.set(schema, rule);
  return schema;
}

/** A schema's inner schema, through `.optional()`, `.default()` and the like; undefined at the core. */
function innerOf(schema: z.ZodType): z.ZodType | undefined {
  const def = schema.def as { innerType?: z.ZodType };
  return def.innerType;
}

/** The rule of option schema `schema`, looked for through its `.optional()` and `.default()` wrappers. */
export function ruleOf(schema: z.ZodType | undefined): OptionRule | undefined {
  for (let at = schema; at !== undefined; at = innerOf(at)) {
    const rule = rules.get(at);
    if (rule !== undefined) return rule;
  }
  return undefined;
}

/** Whether option schema `schema` has a `.default()`, and its value: the default the parse fills in. */
export function defaultOf(schema: z.ZodType): { value: unknown } | undefined {
  for (let at: z.ZodType | undefined = schema; at !== undefined; at = innerOf(at)) {
    const def = at.def as { type: string; defaultValue?: unknown };
    if (def.type === 'default') return { value: def.defaultValue };
  }
  return undefined;
}

/** An option whose values `accepts` takes; any other is `invalid_option`: it "must be `expected`". */
export function option<T>(expected: string, accepts: (value: unknown) => boolean): z.ZodCustom<T, T> {
  return withRule(z.custom<T>(accepts), { expected });
}

/**
 * An option checked by `check`, which throws the option's own error for a value it refuses (naming
 * a nested key, say): the function that says what is wrong is the one that decides it.
 */
export function checkedBy<T>(
  expected: string,
  check: (where: string, value: T) => unknown,
): z.ZodCustom<T, T> {
  // The check takes what its option's type says, but is written for any value a caller may pass.
  const refuse = check as (where: string, value: unknown) => unknown;
  const accepts = (value: unknown) => {
    try {
      refuse('', value);
      return true;
    } catch {
      return false;
    }
  };
  return withRule(z.custom<T>(accepts), { expected, refuse });
}

/**
 * An option of type `T` that its options object takes as it is: what uses it checks it (a run checks
 * its kickoff's inputs and ids, a process its crew's manager), in the order it always did.
 */
export function unchecked<T>(): z.ZodCustom<T, T> {
  return z.custom<T>();
}
