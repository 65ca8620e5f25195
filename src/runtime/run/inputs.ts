import { InvalidInputsError } from '../../errors.js';

/**
 * The inputs of a run, checked: `undefined` is `{}`; anything but a plain object (a string, an array,
 * a number, `null`, a class instance) is refused with `invalid_inputs` naming what was given, before
 * any call — a string would otherwise be spread character by character.
 */
export function checkInputs(where: string, inputs: unknown): Record<string, unknown> {
  if (inputs === undefined) return {};
  if (typeof inputs === 'object' && inputs !== null && !Array.isArray(inputs)) {
    const proto: unknown = Object.getPrototypeOf(inputs);
    if (proto === Object.prototype || proto === null) return inputs as Record<string, unknown>;
  }
  throw InvalidInputsError.notAnObject(where, inputs);
}
