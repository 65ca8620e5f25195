import { InvalidInputsError, InvalidOptionError } from '../../errors.js';

/**
 * The largest inputs a run takes by default, in bytes of their JSON form: 4 MiB. Every run encodes
 * its inputs for its store (a flow keeps them in its state too), in one piece that the host's event
 * loop waits for — some seconds at 20 MB — so larger inputs are refused before any of that.
 */
export const DEFAULT_MAX_INPUT_BYTES = 4 * 1024 * 1024;

/**
 * How deep inputs may nest: a value inside 100 objects, arrays, maps or sets (the inputs object
 * itself the first). Deeper inputs are refused before anything walks them by recursion.
 */
export const MAX_INPUT_DEPTH = 100;

/**
 * A container being measured: its entries (an array's items, an object's keys, a map's keys and
 * values in turn, a set's values), the next one to read, and where it sits.
 */
class Frame {
  readonly entries: readonly unknown[];
  readonly keyed: boolean;
  next = 0;

  constructor(
    readonly value: object,
    readonly depth: number,
    readonly parent: Frame | undefined,
  ) {
    this.keyed = false;
    if (Array.isArray(value)) this.entries = value;
    else if (value instanceof Map) this.entries = [...value].flat();
    else if (value instanceof Set) this.entries = [...value];
    else if (value instanceof Date || value instanceof ArrayBuffer || ArrayBuffer.isView(value))
      this.entries = [];
    else {
      this.entries = Object.keys(value);
      this.keyed = true;
    }
  }
}

/** The value of a frame's entry `i` (an object's entry is its key), and the bytes of its key. */
function entryOf(frame: Frame, i: number): { entry: unknown; keyBytes: number } {
  const key = frame.entries[i];
  if (!frame.keyed) return { entry: key, keyBytes: 0 };
  return {
    entry: (frame.value as Record<string, unknown>)[key as string],
    keyBytes: (key as string).length + 3,
  };
}

/** What a value adds to the JSON size besides its entries: a string's UTF-8 (at least its length), brackets. */
function ownBytes(value: unknown, room: number): number {
  if (typeof value === 'string') {
    // UTF-8 takes at least a byte per UTF-16 unit: a string longer than the room is over without a scan.
    return value.length > room ? value.length : Buffer.byteLength(value, 'utf8') + 2;
  }
  if (typeof value === 'number' || typeof value === 'bigint') return String(value).length;
  if (value === null || value === true) return 4;
  if (typeof value !== 'object') return 5;
  if (value instanceof Date) return 26;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return 2 * value.byteLength;
  return 2;
}

/** The path of the container `frame` measures, from the inputs: `inputs.order.items[3]`. */
function pathOf(frame: Frame): string {
  let path = '';
  for (let at = frame; at.parent !== undefined; at = at.parent) {
    const { parent } = at;
    const i = parent.next - 1;
    if (parent.keyed) path = `.${String(parent.entries[i])}${path}`;
    else if (parent.value instanceof Map)
      path = `${i % 2 === 0 ? '.keys()' : `.get(${String(parent.entries[i - 1])})`}${path}`;
    else path = `${parent.value instanceof Set ? '.values()' : `[${i}]`}${path}`;
  }
  return `inputs${path}`;
}

/**
 * Whether `value` is `frame`'s container or one around it: a cycle, measured once. (A set of every
 * container seen would cost each object an identity hash: five times the walk.)
 */
function holds(frame: Frame, value: object): boolean {
  for (let at: Frame | undefined = frame; at !== undefined; at = at.parent)
    if (at.value === value) return true;
  return false;
}

/**
 * Refuses inputs larger than `maxBytes` in bytes of their JSON form, or nested deeper than
 * {@link MAX_INPUT_DEPTH}, with `invalid_inputs` naming the limit (and, for depth, where): checked
 * before anything else reads them, without recursion, and stopping as soon as a limit is passed, so
 * that the check costs at most what the limit allows. An object met twice counts twice, as JSON
 * writes it; a cycle counts once.
 */
export function checkInputLimits(where: string, inputs: object, maxBytes: number): void {
  let frame: Frame | undefined = new Frame(inputs, 1, undefined);
  let bytes = 2;
  while (frame !== undefined) {
    if (frame.next === frame.entries.length) {
      frame = frame.parent;
      continue;
    }
    const { entry, keyBytes } = entryOf(frame, frame.next);
    frame.next += 1;
    bytes += 1 + keyBytes + ownBytes(entry, maxBytes - bytes);
    if (bytes > maxBytes) throw InvalidInputsError.tooLarge(where, maxBytes);
    if (typeof entry !== 'object' || entry === null || holds(frame, entry)) continue;
    frame = new Frame(entry, frame.depth + 1, frame);
    if (frame.depth > MAX_INPUT_DEPTH)
      throw InvalidInputsError.tooDeep(where, MAX_INPUT_DEPTH, pathOf(frame));
  }
}

/** A run's `maxInputBytes`: the default when absent; `invalid_option` unless a whole number ≥ 1 or `Infinity`. */
export function maxInputBytesOf(where: string, given: unknown): number {
  if (given === undefined) return DEFAULT_MAX_INPUT_BYTES;
  if (given === Number.POSITIVE_INFINITY || (Number.isInteger(given) && (given as number) >= 1)) {
    return given as number;
  }
  throw new InvalidOptionError(where, 'maxInputBytes', 'a whole number of bytes ≥ 1, or Infinity', given);
}
