import type { Context } from 'hono';
import type { z } from 'zod';
import { IdempotencyKeyReusedError, InvalidRequestError, isStatecrewError } from '../errors.js';
import { headFacts } from '../runtime/durable/history-page.js';
import { readHistory } from '../runtime/history/history.js';
import type { RunLineage } from '../types.js';
import type { ServedDefinition, ServedResumeOptions, StartedRun } from './definitions.js';
import type { forkSchema } from './history-schemas.js';
import { idempotencyKeyOf, runIdOfKey } from './idempotency.js';
import { type AnswerDesk, servedRunOf } from './run-answers.js';
import { type RunRef, trackStarted } from './run-starter.js';

const ROUTE = 'POST /runs/:id/fork';

/** The body of `POST /runs/:id/fork`, checked. */
export type ForkBody = z.output<typeof forkSchema>;

/** A fork as `POST /runs/:id/fork` answers it: the new run, and where it was forked from. */
export interface ForkRef extends RunRef {
  forkedFrom?: RunLineage;
}

/**
 * Runs `fork` (given the options that track it) and resolves once the new run holds its id in the
 * store, tracked as live from then until it settles; rejects with what refused it first
 * (`checkpoint_not_found`, `run_exists`…), tracking nothing.
 */
async function forkTracked(
  desk: AnswerDesk,
  served: ServedDefinition,
  fork: (options: ServedResumeOptions) => Promise<unknown>,
): Promise<RunRef> {
  const controller = new AbortController();
  let heard: (run: StartedRun) => void = () => {};
  const created = new Promise<StartedRun>((resolve) => {
    heard = resolve;
  });
  const result = fork({ store: desk.store, events: 'store', signal: controller.signal, onRun: heard });
  desk.live.asked(controller, result);
  const run = await Promise.race([created, result.then(() => undefined)]);
  // A fork hears of its run as it is created: one that ended unheard is a fault of the server.
  if (run === undefined) throw new Error(`${ROUTE}: the fork ended before its run was created`);
  // Tracked once it holds its id (as POST /runs does): a fork refused its id must not stand for the run that holds it.
  return trackStarted(desk.live, served, { ...run, result }, controller);
}

/** Starts the fork of `source` that `body` asks for, under `id` when given; resolves once it started here. */
async function startFork(
  desk: AnswerDesk,
  served: ServedDefinition,
  source: string,
  body: ForkBody,
  id: string | undefined,
): Promise<ForkRef> {
  const edits = {
    at: body.at,
    ...(body.outputs === undefined ? {} : { outputs: body.outputs }),
    ...(body.inputs === undefined ? {} : { inputs: body.inputs }),
    ...(id === undefined ? {} : { id }),
  };
  const ref = await forkTracked(desk, served, (options) =>
    served.kind === 'crew'
      ? // Streams as a run the server starts does: its text reaches the event streams as it is written.
        served.crew.fork(source, { ...edits, ...options, stream: true })
      : served.flow.fork(source, {
          ...edits,
          ...(body.state === undefined ? {} : { state: body.state }),
          ...options,
        }),
  );
  const { forkedFrom } = headFacts(await desk.store.readRun(ref.id));
  return { ...ref, ...(forkedFrom === undefined ? {} : { forkedFrom }) };
}

/** The checkpoint (node id) `at` names in run `source`: itself, or the node id of checkpoint seq `at`. */
async function checkpointOf(
  desk: AnswerDesk,
  source: string,
  at: string | number,
): Promise<string | undefined> {
  if (typeof at === 'string') return at;
  const page = await readHistory(desk.store, source, { after: at - 1, limit: 1 });
  return page.checkpoints[0]?.seq === at ? page.checkpoints[0].checkpoint : undefined;
}

/**
 * `POST /runs/:id/fork`: forks stored run `source` at a checkpoint with the body's edits, here, like
 * `POST /runs` starts a run; with an `Idempotency-Key` the fork's id is the key's, and the same
 * request sent again answers the fork it made (`idempotency_key_reused` when that run is not a fork
 * of the same run at the same checkpoint). A crew run takes no `state` (`invalid_request`).
 */
export async function forkRun(
  desk: AnswerDesk,
  c: Context,
  source: string,
  body: ForkBody,
): Promise<ForkRef> {
  const [, served] = await servedRunOf(desk, ROUTE, source);
  if (served.kind === 'crew' && body.state !== undefined) {
    throw new InvalidRequestError(ROUTE, [
      {
        path: 'body.state',
        message: `run "${source}" is a crew run: only a flow's fork takes state (edit a task's output with outputs)`,
      },
    ]);
  }
  const key = idempotencyKeyOf(c, ROUTE, body.id);
  if (key === undefined) return startFork(desk, served, source, body, body.id);
  const id = runIdOfKey(key);
  try {
    return await startFork(desk, served, source, body, id);
  } catch (error) {
    if (!isStatecrewError(error, 'run_exists')) throw error;
  }
  const head = await desk.store.readRun(id);
  const { forkedFrom } = headFacts(head);
  const checkpoint = await checkpointOf(desk, source, body.at);
  const same =
    head?.name === served.name && forkedFrom?.runId === source && forkedFrom.checkpoint === checkpoint;
  if (!same || forkedFrom === undefined) throw new IdempotencyKeyReusedError(ROUTE, key, id);
  c.header('Idempotent-Replayed', 'true');
  return { id, definition: served.name, kind: served.kind, forkedFrom };
}
