import { processWide } from '../../process-wide.js';
import type { Clock } from './clock.js';

/**
 * When each rate-limited agent or model may start its next call, in its clock's milliseconds: shared
 * by every copy of the package loaded in one process (a model made with one copy, used by agents of
 * another too).
 */
const nextSlot = processWide('rateLimitTurns.v1', () => new WeakMap<object, number>());

/**
 * Waits for `key`'s next turn under `maxRpm` calls a minute: calls are spaced `60000 / maxRpm` ms
 * apart, in the order they asked, instead of failing. Every run that uses the same agent or model
 * shares its turns. Resolves at once when the turn is now; rejects with the signal's reason on abort.
 */
export function waitTurn(key: object, maxRpm: number, clock: Clock, signal: AbortSignal): Promise<void> {
  const now = clock.now();
  const at = Math.max(now, nextSlot.get(key) ?? now);
  nextSlot.set(key, at + 60_000 / maxRpm);
  const wait = at - now;
  if (wait <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, wait);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
