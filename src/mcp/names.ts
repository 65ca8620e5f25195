import { createHash } from 'node:crypto';

/** The longest tool name providers accept. */
const MAX_NAME = 64;
const VALID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The name a server's tool is granted under: `<prefix>_<tool>` (`prefix` '': the tool's own name).
 * Providers accept only letters, digits, `_` and `-`, at most 64 of them: a name that breaks that is
 * spelled with `_` for each other character, shortened, and given a hash of the whole name, so that
 * it stays the same from run to run and differs from every other tool's.
 */
export function grantedName(prefix: string, tool: string): string {
  const whole = prefix === '' ? tool : `${prefix}_${tool}`;
  if (VALID.test(whole)) return whole;
  const hash = createHash('sha256').update(whole).digest('hex').slice(0, 8);
  const spelled = whole.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_NAME - hash.length - 1);
  return `${spelled}_${hash}`;
}
