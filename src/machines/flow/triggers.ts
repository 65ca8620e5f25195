/** What makes a flow step run: a step name or route label, or a gate over other triggers. */
export type Trigger = string | TriggerGate;

/** `or(...)`: satisfied by any of its triggers; `and(...)`: by all of them. */
export interface TriggerGate {
  readonly kind: 'or' | 'and';
  readonly of: readonly Trigger[];
}

/**
 * A trigger satisfied when any of `triggers` is.
 *
 * @example
 * flow.listen('notify', or('approved', 'escalated'), notify);
 */
export function or(...triggers: Trigger[]): TriggerGate {
  return { kind: 'or', of: triggers };
}

/**
 * A trigger satisfied when all of `triggers` are; it resets after its step fires.
 *
 * @example
 * flow.listen('announce', and('publish', 'audit'), announce);
 */
export function and(...triggers: Trigger[]): TriggerGate {
  return { kind: 'and', of: triggers };
}

const FAILED_PREFIX = 'failed(';

/**
 * A trigger satisfied when step `step` fails for good (its retries spent). A failure some trigger
 * names is handled: the run goes on, and ends `completed` unless something unhandled failed. The
 * handler's payload is `{ step, error: { message, code?, retryable } }`. It composes with `or` and
 * `and`; as a string it reads `failed(<step>)`.
 *
 * @example
 * flow.listen('refund', failed('charge'), ({ payload }) => refund(payload));
 */
export function failed(step: string): string {
  return `${FAILED_PREFIX}${step})`;
}

/** The step a `failed(...)` trigger name is about; undefined for any other name. */
export function failedStepOf(name: string): string | undefined {
  return name.startsWith(FAILED_PREFIX) && name.endsWith(')')
    ? name.slice(FAILED_PREFIX.length, -1)
    : undefined;
}

/** Every name (step or label) a trigger mentions. */
export function namesIn(trigger: Trigger, into: Set<string> = new Set()): Set<string> {
  if (typeof trigger === 'string') into.add(trigger);
  else for (const inner of trigger.of) namesIn(inner, into);
  return into;
}

/** Which emission satisfied a trigger: the name emitted and its place in emission order. */
export interface Satisfaction {
  name: string;
  seq: number;
}

/**
 * Whether `trigger` is satisfied by the names emitted (each with its emission sequence number), and
 * by which emission: for `or`, the earliest satisfied branch; for `and`, the branch completed last.
 */
export function satisfiedBy(
  trigger: Trigger,
  emitted: ReadonlyMap<string, number>,
): Satisfaction | undefined {
  if (typeof trigger === 'string') {
    const seq = emitted.get(trigger);
    return seq === undefined ? undefined : { name: trigger, seq };
  }
  let chosen: Satisfaction | undefined;
  for (const inner of trigger.of) {
    const found = satisfiedBy(inner, emitted);
    if (trigger.kind === 'and') {
      if (found === undefined) return undefined;
      if (chosen === undefined || found.seq >= chosen.seq) chosen = found;
    } else if (found !== undefined && (chosen === undefined || found.seq < chosen.seq)) {
      chosen = found;
    }
  }
  return chosen;
}
