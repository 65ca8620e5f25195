import { InvalidOptionError } from '../../errors.js';

/** Throws `invalid_option` unless `value` is undefined or an integer ≥ `min`. */
export function optionalInteger(where: string, option: string, value: unknown, min: number): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new InvalidOptionError(where, option, `an integer ≥ ${min}`, value);
  }
}

/** Throws `invalid_option` unless `value` is undefined or a finite number > 0. */
export function optionalPositive(where: string, option: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidOptionError(where, option, 'a finite number > 0', value);
  }
}

/** Throws `invalid_option` unless `value` is a string that is not blank. */
export function requiredText(where: string, option: string, value: unknown): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidOptionError(where, option, 'a non-empty string', value);
  }
}
