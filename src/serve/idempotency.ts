import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { IdempotencyKeyReusedError, InvalidRequestError, isStatecrewError } from '../errors.js';
import { storedInputs } from '../runtime/crew/crew-resume.js';
import { headFacts } from '../runtime/durable/history-page.js';
import type { Store } from '../stores/store.js';
import type { ServedDefinition } from './definitions.js';
import type { RunRef } from './run-starter.js';

/** The header a client names a run request with, so that sending it again starts no second run. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** A key: 1–255 visible ASCII characters. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The `Idempotency-Key` of a `route` request, checked (`invalid_request` for a bad one, or for one
 * beside a body `id`: the key names the run); undefined when there is none.
 */
export function idempotencyKeyOf(c: Context, route: string, bodyId: string | undefined): string | undefined {
  const key = c.req.header(IDEMPOTENCY_HEADER);
  if (key === undefined) return undefined;
  const issue = !KEY.test(key)
    ? 'must be 1–255 visible ASCII characters'
    : bodyId !== undefined
      ? 'names the run: send it or a body id, not both'
      : undefined;
  if (issue === undefined) return key;
  throw new InvalidRequestError(route, [{ path: 'header.idempotency-key', message: issue }]);
}

/** The id of the run a key names: the same in every server over one store, so the store's claim decides. */
export function runIdOfKey(key: string): string {
  return `idem-${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 40)}`;
}

/** JSON with its object keys sorted: two equal values give one text whatever their keys' order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/**
 * Starts a run under the id `key` names, or, when that run exists (asked for by an earlier request
 * with the key, here or on another server), answers it again when it was asked for with the same
 * definition, inputs and thread; `idempotency_key_reused` when not.
 */
export async function startOnce(
  store: Store,
  key: string,
  served: ServedDefinition,
  asked: { inputs: Record<string, unknown>; thread?: string | undefined },
  start: (id: string) => Promise<RunRef>,
): Promise<{ ref: RunRef; replayed: boolean }> {
  const { inputs } = asked;
  const id = runIdOfKey(key);
  try {
    return { ref: await start(id), replayed: false };
  } catch (error) {
    if (!isStatecrewError(error, 'run_exists')) throw error;
  }
  const head = await store.readRun(id);
  const stored = head === undefined ? undefined : storedInputs(head);
  // A flow keeps its id among its inputs: the id is the key's, so it is no difference.
  const { id: _id, ...flowInputs } = stored ?? {};
  const kept = served.kind === 'flow' ? flowInputs : stored;
  const same =
    head?.name === served.name &&
    kept !== undefined &&
    canonical(kept) === canonical(inputs) &&
    headFacts(head).thread === asked.thread;
  if (!same) throw new IdempotencyKeyReusedError('POST /runs', key, id);
  return { ref: { id, definition: served.name, kind: served.kind }, replayed: true };
}
