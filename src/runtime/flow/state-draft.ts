import { stringify } from 'devalue';
import { InvalidStateError } from '../../errors.js';

type StateRecord = Record<string, unknown>;

/** A top-level value in a form two copies can be compared by; undefined when it has none (then it counts as changed). */
function fingerprint(value: unknown): string | undefined {
  try {
    return stringify(value);
  } catch {
    return undefined;
  }
}

/**
 * A step attempt's own copy of a flow run's state: the attempt changes the copy, and only when it
 * completes do the top-level keys it changed (or added, or deleted) land on the run's state — so an
 * attempt that fails, to be tried again or not, leaves nothing half done, and steps running beside it
 * keep what they changed under other keys. A key both changed: the later completion's value wins.
 */
export class StateDraft {
  /** The copy the attempt works on. */
  readonly state: StateRecord;
  readonly #live: StateRecord;
  /** Each top-level key's fingerprint when the copy was taken. */
  readonly #taken = new Map<string, string | undefined>();
  /** What `land` overwrote, so `undo` can put it back: the key's value, or absent. */
  readonly #overwritten = new Map<string, { had: boolean; value: unknown }>();

  /** Copies `live` for an attempt of `step`; a state that cannot be copied is `invalid_state`. */
  constructor(live: object, step: string) {
    this.#live = live as StateRecord;
    try {
      this.state = structuredClone(this.#live);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new InvalidStateError(
        step,
        [{ path: [], message: reason }],
        `Step "${step}" has retries, so each attempt works on a copy of the state, but the state cannot be copied: ${reason}`,
      );
    }
    for (const [key, value] of Object.entries(this.#live)) this.#taken.set(key, fingerprint(value));
  }

  /** Puts what the attempt changed on the run's state. */
  land(): void {
    for (const [key, value] of Object.entries(this.state)) {
      const before = this.#taken.get(key);
      if (this.#taken.has(key) && before !== undefined && before === fingerprint(value)) continue;
      this.#overwrite(key, { had: true, value });
    }
    for (const key of this.#taken.keys()) {
      if (!Object.hasOwn(this.state, key)) this.#overwrite(key, { had: false, value: undefined });
    }
  }

  /** Takes back what `land` put on the run's state (its check refused what the attempt left). */
  undo(): void {
    for (const [key, previous] of this.#overwritten) {
      if (previous.had) this.#live[key] = previous.value;
      else delete this.#live[key];
    }
    this.#overwritten.clear();
  }

  #overwrite(key: string, next: { had: boolean; value: unknown }): void {
    if (!this.#overwritten.has(key)) {
      this.#overwritten.set(key, { had: Object.hasOwn(this.#live, key), value: this.#live[key] });
    }
    if (next.had) this.#live[key] = next.value;
    else delete this.#live[key];
  }
}
