import type { NodeFailure } from '../../machines/lifecycle.js';

/** The delay before a task's first retry when neither the task nor its agent sets `retryDelayMs`. */
export const DEFAULT_RETRY_DELAY_MS = 500;
/** No computed backoff waits longer than this. */
export const MAX_RETRY_DELAY_MS = 30_000;
const JITTER = 0.2;

/** A number in [0, 1) from a string (FNV-1a), so a run's jitter is the same every time it is replayed. */
function unitHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) / 2 ** 32;
}

/**
 * How long to wait after failed attempt number `attempt` (from 1) before the next one: the provider's
 * `retry-after` when it gave one; else `baseMs` doubled per attempt, jittered by ±20% and capped at
 * 30 s. The jitter is drawn from `seed` (run, node and attempt), not from `Math.random`: runs spread
 * their retries apart, and a scripted run stays reproducible.
 */
export function retryDelay(baseMs: number, attempt: number, failure: NodeFailure, seed: string): number {
  if (failure.retryAfterMs !== undefined) return failure.retryAfterMs;
  if (baseMs === 0) return 0;
  const doubled = Math.min(baseMs * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS);
  const jittered = doubled * (1 + JITTER * (2 * unitHash(seed) - 1));
  return Math.min(Math.round(jittered), MAX_RETRY_DELAY_MS);
}
