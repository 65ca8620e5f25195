import { InvalidOptionError } from '../errors.js';

/**
 * What a store's acknowledged commit survives:
 * - `'process'`: a crash of the process that wrote it (and of any other process on the store), not a
 *   power loss or an operating-system crash of the database's machine. SQLite: WAL with
 *   `synchronous = NORMAL`; PostgreSQL: `synchronous_commit = off` (the server may lose its last
 *   commits if its machine fails, and is never left inconsistent).
 * - `'power'`: a power loss too: the commit is on disk before it is acknowledged. SQLite: WAL with
 *   `synchronous = FULL`; PostgreSQL: `synchronous_commit = on`.
 */
export type Durability = 'process' | 'power';

/** The durability kinds, in the order of their strength. */
export const DURABILITIES: readonly Durability[] = ['process', 'power'];

/** `value`, or `fallback` when it is undefined; an `invalid_option` error naming `store` otherwise. */
export function durabilityOf(store: string, value: unknown, fallback: Durability): Durability {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && (DURABILITIES as readonly string[]).includes(value)) {
    return value as Durability;
  }
  throw new InvalidOptionError(store, 'durability', "'process' or 'power'", value);
}

/** `value` as a boolean (`fallback` when undefined); an `invalid_option` error naming `store` and `option` otherwise. */
export function flagOf(store: string, option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  throw new InvalidOptionError(store, option, 'true or false', value);
}
