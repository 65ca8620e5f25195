import { InvalidOptionError } from '../errors.js';

/**
 * What the server stores (PostgreSQL, Redis) share about reaching their server: the socket errors
 * that mean it cannot be reached, and the check of a connect timeout option.
 */

/** Node's socket error codes that mean the server cannot be reached (`store_unavailable`). */
export const UNREACHABLE_ERRNOS: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/** Checks a `connectTimeoutMs` option: undefined, or a positive number of milliseconds. */
export function checkConnectTimeout(store: string, connectTimeoutMs: unknown): void {
  if (connectTimeoutMs === undefined) return;
  if (typeof connectTimeoutMs !== 'number' || !Number.isFinite(connectTimeoutMs) || connectTimeoutMs <= 0) {
    throw new InvalidOptionError(
      store,
      'connectTimeoutMs',
      'a positive number of milliseconds',
      connectTimeoutMs,
    );
  }
}
