import { InvalidInputsError } from '../../errors.js';
import { checkInputLimits, maxInputBytesOf } from './input-limits.js';

/**
 * The inputs of a run, checked: `undefined` is `{}`; anything but a plain object (a string, an array,
 * a number, `null`, a class instance) is refused with `invalid_inputs` naming what was given, before
 * any call — a string would otherwise be spread character by character. So are inputs larger than
 * `maxInputBytes` (default 4 MiB) as JSON, or nested deeper than 100 levels (see `input-limits.ts`).
 */
export function checkInputs(
  where: string,
  inputs: unknown,
  maxInputBytes?: number | undefined,
): Record<string, unknown> {
  const limit = maxInputBytesOf(where, maxInputBytes);
  if (inputs === undefined) return {};
  if (typeof inputs === 'object' && inputs !== null && !Array.isArray(inputs)) {
    const proto: unknown = Object.getPrototypeOf(inputs);
    if (proto === Object.prototype || proto === null) {
      checkInputLimits(where, inputs, limit);
      return inputs as Record<string, unknown>;
    }
  }
  throw InvalidInputsError.notAnObject(where, inputs);
}
