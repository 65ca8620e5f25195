import type { JsonValue } from '../../stores/store.js';

/** devalue's index for `undefined`. */
const UNDEFINED = -1;

/** Thrown inside {@link flattenPlain} at the first value it leaves to devalue. */
const NOT_PLAIN = Symbol('not plain');

/**
 * `value` in devalue's flat form — the array `JSON.parse(devalue.stringify(value))` gives, slot for
 * slot — built directly, when `value` is plain data: strings, booleans, null, `undefined`, finite
 * numbers other than -0, dense arrays and objects of `Object.prototype` without symbol keys, shared
 * or circular references included. Undefined for anything else (a Date, a Map, NaN, a function, a
 * class instance…), which devalue itself encodes (or refuses, naming where).
 */
export function flattenPlain(value: unknown): JsonValue | undefined {
  const slots: JsonValue[] = [];
  const indexes = new Map<unknown, number>();
  const flatten = (thing: unknown): number => {
    if (thing === undefined) return UNDEFINED;
    const known = indexes.get(thing);
    if (known !== undefined) return known;
    const index = slots.length;
    indexes.set(thing, index);
    slots.push(null);
    slots[index] = slotOf(thing, flatten);
    return index;
  };
  try {
    const root = flatten(value);
    return root === UNDEFINED ? UNDEFINED : slots;
  } catch (error) {
    if (error === NOT_PLAIN) return undefined;
    throw error;
  }
}

/** One slot of the flat form: a primitive as it is, an array or object of its members' indexes. */
function slotOf(thing: unknown, flatten: (member: unknown) => number): JsonValue {
  switch (typeof thing) {
    case 'string':
    case 'boolean':
      return thing;
    case 'number':
      if (!Number.isFinite(thing) || Object.is(thing, -0)) throw NOT_PLAIN;
      return thing;
    case 'object':
      if (thing === null) return null;
      if (Array.isArray(thing)) return arraySlot(thing, flatten);
      return objectSlot(thing, flatten);
    default:
      throw NOT_PLAIN;
  }
}

function arraySlot(array: unknown[], flatten: (member: unknown) => number): number[] {
  if (Object.getPrototypeOf(array) !== Array.prototype) throw NOT_PLAIN;
  const slot: number[] = new Array(array.length);
  for (let i = 0; i < array.length; i += 1) {
    if (!Object.hasOwn(array, i)) throw NOT_PLAIN;
    slot[i] = flatten(array[i]);
  }
  return slot;
}

function objectSlot(object: object, flatten: (member: unknown) => number): Record<string, number> {
  if (Object.getPrototypeOf(object) !== Object.prototype) throw NOT_PLAIN;
  if (Object.getOwnPropertySymbols(object).length > 0) throw NOT_PLAIN;
  const slot: Record<string, number> = {};
  for (const key of Object.keys(object)) {
    if (key === '__proto__') throw NOT_PLAIN;
    slot[key] = flatten((object as Record<string, unknown>)[key]);
  }
  return slot;
}
