import type { Clock } from './clock.js';

/**
 * Where the turns live: on `globalThis`, so runs of every copy of the package loaded in one process
 * share a model's turns (a model made with one copy, used by agents of another too). A change to the
 * shape takes a new key.
 */
const TURNS = Symbol.for('statecrew.rateLimitTurns.v1');

/** When each rate-limited agent or model may start its next call, in its clock's milliseconds. */
const nextSlot = processTurns();

function processTurns(): WeakMap<object, number> {
  const host = globalThis as { [TURNS]?: WeakMap<object, number> };
  host[TURNS] ??= new WeakMap();
  return host[TURNS];
}

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
