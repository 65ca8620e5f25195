import { DevalueError, stringify, unflatten } from 'devalue';
import type { JsonValue } from '../../stores/store.js';
import { flattenPlain } from './plain-flatten.js';

/**
 * How run values (flow state, step outputs, structured task outputs, inputs) are kept: through
 * devalue, so that `Date`, `Map`, `Set`, `BigInt`, `undefined`, `NaN`, `±Infinity`, `-0`, `RegExp`
 * and shared or circular references come back as they went in. A stored value is devalue's flat
 * form: a JSON array that the store keeps like any other JSON.
 */

/** A value the codec cannot keep: a function, a symbol, a class instance. */
export class UnstorableValueError extends Error {
  constructor(
    /** Where it is, from the value's root: `.customer.onPay`, `[2]`, `.m.get("k")`. */
    readonly path: string,
    /** What it is, as devalue says: `Cannot stringify a function`. */
    readonly reason: string,
  ) {
    super(`${reason} at ${path === '' ? 'the root' : path}`);
    this.name = 'UnstorableValueError';
  }
}

/**
 * `value` in its stored form; throws {@link UnstorableValueError} naming where what cannot be kept is.
 * Plain data is flattened directly into the form devalue's text parses to (no text made and read
 * back); anything else goes through devalue.
 */
export function encodeRunValue(value: unknown): JsonValue {
  const plain = flattenPlain(value);
  if (plain !== undefined) return plain;
  try {
    return JSON.parse(stringify(value)) as JsonValue;
  } catch (error) {
    if (error instanceof DevalueError) throw new UnstorableValueError(error.path, error.message);
    throw error;
  }
}

/** A value back from its stored form. */
export function decodeRunValue(stored: JsonValue): unknown {
  return unflatten(stored as number | unknown[]);
}

/**
 * `value` in its stored form, or the error `refuse` makes of what cannot be kept, its path from a
 * named root: `encodeAt(state, 'state', …)` names `state.customer.onPay`.
 */
export function encodeAt(
  value: unknown,
  root: string,
  refuse: (path: string, reason: string) => Error,
): JsonValue {
  try {
    return encodeRunValue(value);
  } catch (error) {
    if (error instanceof UnstorableValueError) throw refuse(`${root}${error.path}`, error.reason);
    throw error;
  }
}
