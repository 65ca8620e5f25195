import { InvalidOptionError } from '../../errors.js';
import { DEFAULT_SHUTDOWN_GRACE_MS } from '../../runtime/durable/graceful-stop.js';

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Milliseconds of a duration as people write it: `500ms`, `30s`, `15m`, `12h`, `7d`, `2w` (`invalid_option` else). */
export function parseDuration(option: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(text.trim());
  if (match === null) {
    throw new InvalidOptionError('statecrew', option, 'a duration such as 30m, 12h or 7d', text);
  }
  return Number(match[1]) * (UNITS[match[2] as string] as number);
}

/** A whole number > 0 given as text (`invalid_option` else). */
export function positiveInteger(option: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) {
    throw new InvalidOptionError('statecrew', option, 'a whole number > 0', text);
  }
  return value;
}

/** `--shutdown-grace-ms` of command `where`: a whole number of ms ≥ 0 (`invalid_option` else). */
export function shutdownGraceOf(where: string, text: string | undefined): number {
  return text === undefined
    ? DEFAULT_SHUTDOWN_GRACE_MS
    : integerAtLeast(where, '--shutdown-grace-ms', text, 0, 'ms');
}

/**
 * A whole number ≥ `min` given in digits, for option `option` of command `where`, counting `unit`
 * when given (`invalid_option` else).
 */
export function integerAtLeast(where: string, option: string, text: string, min: number, unit = ''): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min) {
    const expected = unit === '' ? `a whole number ≥ ${min}` : `a whole number of ${unit} ≥ ${min}`;
    throw new InvalidOptionError(where, option, expected, text);
  }
  return value;
}
