import { z } from 'zod';
import type { StepShape } from '../../machines/flow/step-shape.js';
import { fn, integer, positive, text } from '../../options/fields.js';
import { option, unchecked } from '../../options/option.js';
import { type OptionsWhere, parseOptions } from '../../options/parse.js';
import type { Retyped, RetypedRequired } from '../../options/retyped.js';

/** What a human step's `prompt` function reads. */
export interface HumanPromptContext<S> {
  state: S;
  payload: unknown;
  inputs: Readonly<Record<string, unknown>>;
  outputs: Readonly<Record<string, unknown>>;
  flowId: string;
}

/** The wait before a step's first retry unless it says otherwise, as for tasks. */
export const DEFAULT_STEP_RETRY_DELAY_MS = 500;

/** The options of `flow.start(name, fn, options)`: how a step's body is tried. */
export const stepOptionsSchema = z.strictObject({
  /** Attempts after the first when one fails. @default 0 */
  retries: integer(0).default(0),
  /** Wait before the first retry, in ms (doubled per attempt, jittered, capped at 30 s). @default 500 */
  retryDelayMs: integer(0).default(DEFAULT_STEP_RETRY_DELAY_MS),
  /** Time limit of each attempt, in ms on the run's clock: the step's `signal` aborts (`step_timeout`). */
  timeoutMs: positive().optional(),
});

/**
 * How a step's body is tried: again after a failure, and for how long. A retry follows the task retry
 * rules (a non-retryable `StatecrewError`, an error with `isRetryable === false` or an HTTP-like 4xx
 * other than 408, 409 and 429 is not retried; `retry-after` wins over the backoff). Each attempt of a
 * step with retries works on its own copy of the state, taken when the attempt starts; what it changed
 * lands when it completes, so a failed attempt leaves nothing half done.
 */
export interface StepOptions extends z.input<typeof stepOptionsSchema> {}

/** The options of `flow.listen(name, trigger, fn, options)`: a step's, and how often it may run. */
export const listenOptionsSchema = stepOptionsSchema.extend({
  /** Runs allowed in one flow run; each new emission of the trigger fires it again. @default 1 (later emissions ignored) */
  maxRuns: option<number>(
    'an integer ≥ 1 or Infinity',
    (n) => n === Number.POSITIVE_INFINITY || (Number.isInteger(n) && (n as number) >= 1),
  ).optional(),
});

/** Options of a listening step. */
export interface ListenOptions extends z.input<typeof listenOptionsSchema> {}

/** The options of `flow.router(name, trigger, fn, options)`: a listening step's, and its routes. */
export const routerOptionsSchema = listenOptionsSchema.extend({
  /** Every label the router may return. */
  routes: unchecked<readonly string[]>(),
});

type RouterInput = z.input<typeof routerOptionsSchema>;

/** Options of a router. */
export interface RouterOptions<R extends string>
  extends Omit<RouterInput, 'routes'>,
    Retyped<RouterInput, 'routes', readonly R[]> {}

/** The options of `flow.wait(name, trigger, options)`: the event it waits for, and for how long. */
export const waitOptionsSchema = z.strictObject({
  /** The event `flow.signal(id, event, payload)` completes the wait with. */
  event: text(),
  /** How long it waits, in ms on the run's clock; past it the runner times it out. @default no limit */
  timeoutMs: positive().optional(),
  /** The route label emitted when the wait timed out; without it the timeout fails the step (`step_timeout`). */
  onTimeout: text().optional(),
});

/** Options of a wait step: the event it waits for, and how long before it times out. */
export interface WaitOptions extends z.input<typeof waitOptionsSchema> {}

/** The options of `flow.sleep(name, trigger, options)`: exactly one of `ms` and `until`. */
export const sleepOptionsSchema = z.strictObject({
  /** How long it sleeps, in ms from when it starts. */
  ms: option<number>(
    'a number ≥ 0',
    (ms) => typeof ms === 'number' && Number.isFinite(ms) && ms >= 0,
  ).optional(),
  /** When it wakes: a time computed from the run when it starts (a `Date` or epoch ms). */
  until: fn<(context: HumanPromptContext<unknown>) => Date | number>(
    'a function returning a Date or epoch ms',
  ).optional(),
});

type SleepInput = z.input<typeof sleepOptionsSchema>;

/** Options of a sleep step: a duration, or a time computed from the run. */
export type SleepOptions<S> =
  | RetypedRequired<SleepInput, 'ms', number>
  | RetypedRequired<SleepInput, 'until', (context: HumanPromptContext<S>) => Date | number>;

/** The options of `flow.human(name, trigger, options)`: the human's choices, the question, the deadline. */
export const humanOptionsSchema = z.strictObject({
  /** Every route the human may choose. */
  routes: unchecked<readonly string[]>(),
  /** What the human is asked: text, or a function of the run. @default the step's name */
  prompt: option<string | ((context: HumanPromptContext<unknown>) => string)>(
    'a string or a function',
    (p) => typeof p === 'string' || typeof p === 'function',
  ).optional(),
  /** How long the human has, in ms on the run's clock; past it the runner times the step out. @default no limit */
  timeoutMs: positive().optional(),
  /** The route label emitted when the human did not answer in time; without it the timeout fails the step. */
  onTimeout: text().optional(),
});

type HumanInput = z.input<typeof humanOptionsSchema>;

/** Options of a human step. */
export interface HumanOptions<R extends string, S = unknown>
  extends Omit<HumanInput, 'routes' | 'prompt'>,
    Retyped<HumanInput, 'routes', readonly R[]>,
    Retyped<HumanInput, 'prompt', string | ((context: HumanPromptContext<S>) => string) | undefined> {}

/** How a step runs besides its body: what the builder's options say, checked, with the defaults filled in. */
export type StepSettings = Pick<StepShape, 'maxRuns' | 'retries' | 'retryDelayMs' | 'timeoutMs'>;

/** The options each builder method takes: `start` has no `maxRuns`, a router has its `routes`. */
const STEP_SCHEMAS = { start: stepOptionsSchema, listen: listenOptionsSchema, router: routerOptionsSchema };

/**
 * A step's settings from its builder options, each checked (`invalid_option` naming the step, the
 * option and, for an unknown key, the closest known one).
 */
export function stepSettings(
  where: OptionsWhere,
  kind: keyof typeof STEP_SCHEMAS,
  options: ListenOptions | undefined,
): StepSettings {
  const settings: {
    retries: number;
    retryDelayMs: number;
    timeoutMs?: number | undefined;
    maxRuns?: number | undefined;
  } = parseOptions(STEP_SCHEMAS[kind], where, options ?? {});
  const { retries, retryDelayMs, timeoutMs, maxRuns } = settings;
  return { maxRuns, retries, retryDelayMs, timeoutMs };
}

/** The settings of a step that takes no options (a human step): the defaults — one attempt, no limit. */
export const PLAIN_STEP: StepSettings = stepSettings('a step', 'start', undefined);
