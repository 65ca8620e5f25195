import type { JsonValue } from '../../stores/store.js';

/** Texts shorter than this are stored where they are: a pointer would not be shorter. */
const LONG_TEXT = 200;
/** How deep a stored event is walked; deeper values are cut (`"[too deep]"`). */
const MAX_DEPTH = 64;
/** The key of a pointer to a text stored before: `{ [SAME]: [seq, ...path] }`. */
export const SAME = '$statecrew.same';

/** Where a text was first stored: the event's number and the path to it inside that event. */
type TextPlace = [number, ...(string | number)[]];

/**
 * The long texts of a run's stored events (prompts, contexts, outputs), each stored once: `compact`
 * makes an event's stored form — JSON as `JSON.stringify` writes it (a BigInt as its digits, a cycle
 * cut as `"[circular]"`) — with every long text already stored replaced by a pointer to where it was
 * first. Texts first seen are tentative until their commit is confirmed.
 */
export class TextIndex {
  readonly #places = new Map<string, TextPlace>();
  #tentative: string[] = [];

  /** The stored form of event number `seq`. */
  compact(event: unknown, seq: number): JsonValue {
    return this.#walk(event, [seq], new Set(), 0);
  }

  /** The texts of the events compacted since the last call landed in the store. */
  confirm(): void {
    this.#tentative = [];
  }

  /** The texts of the events compacted since the last call were lost: nothing may point to them. */
  discard(): void {
    for (const text of this.#tentative) this.#places.delete(text);
    this.#tentative = [];
  }

  #walk(value: unknown, path: TextPlace, seen: Set<object>, depth: number): JsonValue {
    if (typeof value === 'string') return this.#text(value, path);
    if (typeof value === 'number') return Number.isFinite(value) ? value : null;
    if (typeof value === 'boolean' || value === null) return value;
    if (typeof value === 'bigint') return value.toString();
    if (typeof value !== 'object') return null; // undefined, functions, symbols: as JSON drops them
    if (seen.has(value)) return '[circular]';
    if (depth >= MAX_DEPTH) return '[too deep]';
    const toJson = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJson === 'function') return this.#walk(toJson.call(value), path, seen, depth + 1);
    seen.add(value);
    try {
      if (Array.isArray(value))
        return value.map((item, i) => this.#walk(item, [...path, i], seen, depth + 1));
      const out: Record<string, JsonValue> = {};
      for (const [key, item] of Object.entries(value)) {
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        out[key] = this.#walk(item, [...path, key], seen, depth + 1);
      }
      return out;
    } finally {
      seen.delete(value);
    }
  }

  #text(text: string, path: TextPlace): JsonValue {
    if (text.length < LONG_TEXT) return text;
    const first = this.#places.get(text);
    if (first !== undefined) return { [SAME]: first };
    this.#places.set(text, path);
    this.#tentative.push(text);
    return text;
  }
}

/**
 * A run's stored events in their full form: every pointer replaced by the text it points to.
 * `events` are in order; a pointer always points to an earlier event.
 */
export function expandTexts(events: ReadonlyMap<number, JsonValue>): Map<number, JsonValue> {
  const full = new Map<number, JsonValue>();
  for (const [seq, event] of events) full.set(seq, expand(event, full));
  return full;
}

function expand(value: JsonValue, earlier: ReadonlyMap<number, JsonValue>): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => expand(item, earlier));
  const place = pointer(value);
  if (place !== undefined) return textAt(place, earlier);
  const out: Record<string, JsonValue> = {};
  for (const [key, item] of Object.entries(value)) out[key] = expand(item, earlier);
  return out;
}

/** The place a pointer points to, if `value` is one. */
function pointer(value: { [key: string]: JsonValue }): TextPlace | undefined {
  const place = value[SAME];
  if (!Array.isArray(place) || Object.keys(value).length !== 1 || typeof place[0] !== 'number')
    return undefined;
  return place as TextPlace;
}

/** The text at `place`; a pointer that leads nowhere (a hand-edited log) reads as an empty text. */
function textAt([seq, ...path]: TextPlace, earlier: ReadonlyMap<number, JsonValue>): JsonValue {
  let at: JsonValue | undefined = earlier.get(seq);
  for (const step of path) {
    if (at === null || typeof at !== 'object') return '';
    at = (at as Record<string | number, JsonValue>)[step];
  }
  return typeof at === 'string' ? at : '';
}
