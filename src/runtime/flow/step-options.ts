import { InvalidOptionError } from '../../errors.js';
import { checkOptionKeys } from '../crew/option-keys.js';
import { optionalInteger, optionalPositive } from '../engine/validate.js';
import type { ListenOptions, StepDefinition, StepOptions } from './definition.js';

/** How a step runs besides its body: what the builder's options say, checked, with the defaults filled in. */
export type StepSettings = Pick<
  StepDefinition<unknown>,
  'maxRuns' | 'retries' | 'retryDelayMs' | 'timeoutMs'
>;

/** The wait before a step's first retry unless it says otherwise, as for tasks. */
export const DEFAULT_STEP_RETRY_DELAY_MS = 500;

const STEP_KEYS = { retries: true, retryDelayMs: true, timeoutMs: true } as const satisfies Readonly<
  Record<keyof StepOptions, true>
>;
const LISTEN_KEYS = { ...STEP_KEYS, maxRuns: true } as const satisfies Readonly<
  Record<keyof ListenOptions, true>
>;
const ROUTER_KEYS = { ...LISTEN_KEYS, routes: true } as const;

/** The option keys each builder method knows: `start` has no `maxRuns`, a router has its `routes`. */
export const STEP_OPTION_KEYS = { start: STEP_KEYS, listen: LISTEN_KEYS, router: ROUTER_KEYS } as const;

/**
 * A step's settings from its builder options, each checked (`invalid_option` naming the step, the
 * option and, for an unknown key, the closest known one): `retries` an integer ≥ 0, `retryDelayMs` an
 * integer ≥ 0, `timeoutMs` a number > 0, `maxRuns` an integer ≥ 1 or `Infinity`.
 */
export function stepSettings(
  where: string,
  kind: keyof typeof STEP_OPTION_KEYS,
  options: ListenOptions | undefined,
): StepSettings {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new InvalidOptionError(where, 'options', 'an object', options);
  }
  checkOptionKeys(where, options, STEP_OPTION_KEYS[kind]);
  const { retries, retryDelayMs, timeoutMs, maxRuns } = options ?? {};
  optionalInteger(where, 'retries', retries, 0);
  optionalInteger(where, 'retryDelayMs', retryDelayMs, 0);
  optionalPositive(where, 'timeoutMs', timeoutMs);
  if (
    maxRuns !== undefined &&
    !(maxRuns === Number.POSITIVE_INFINITY || (Number.isInteger(maxRuns) && maxRuns >= 1))
  ) {
    throw new InvalidOptionError(where, 'maxRuns', 'an integer ≥ 1 or Infinity', maxRuns);
  }
  return {
    maxRuns,
    retries: retries ?? 0,
    retryDelayMs: retryDelayMs ?? DEFAULT_STEP_RETRY_DELAY_MS,
    timeoutMs,
  };
}

/** The settings of a step that takes no options (a human step): the defaults — one attempt, no limit. */
export const PLAIN_STEP: StepSettings = stepSettings('a step', 'start', undefined);
