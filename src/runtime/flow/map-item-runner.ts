import { type AnyActorRef, createActor, fromPromise } from 'xstate';
import { toFailure } from '../../actors/failure.js';
import { withTimeLimit } from '../../actors/time-limit.js';
import { InternalError, StepTimeoutError } from '../../errors.js';
import type { CrewOutput, Failure } from '../../types.js';
import { retryDelay } from '../engine/backoff.js';
import type { Clock } from '../engine/clock.js';
import type { ChildDefinition } from '../run/child-run.js';
import type { ComposableFlow } from './child-flow.js';
import type { MapItemContext, MapSettings } from './compose-options.js';
import type { StepContext } from './definition.js';
import { crewItemInputs, runCrewItem } from './map-crew-item.js';
import { runFlowItem } from './map-flow-item.js';
import type { MapItem } from './map-items.js';
import type { SettledItem } from './map-records.js';
import type { StepScope } from './step-context.js';

/** What running one item needs: the step run, its options, its context, and who hears of the item. */
export interface ItemRunParts {
  scope: StepScope;
  settings: MapSettings;
  context: StepContext<unknown>;
  /** Aborted when the run stops: an item in flight then stops too, and nothing is recorded of it. */
  signal: AbortSignal;
  /** `item` starts (attempt 1, `started`), or will be tried again after its backoff (`retrying`). */
  attempting(item: MapItem, attempt: number): void;
}

/** A function item's work, as its actor runs it: settles with what it returned or threw. */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The actor logic every function item's attempt runs: its work, never rejecting (the item judges the error). */
const itemAttemptLogic = fromPromise<Outcome, { work: () => Promise<unknown> }>(async ({ input }) => {
  try {
    return { ok: true, value: await input.work() };
  } catch (error) {
    return { ok: false, error };
  }
});

/**
 * Runs `work` as an actor of the step run's actor system (created with `parent`, so it never enters
 * the parent's `children` map: a step run of 10,000 items stays linear). Its work never rejects, so
 * the actor always reaches its final state, where it leaves the system by itself (an actor created
 * with a parent cannot be stopped but by that parent). One id for every item keeps the parent's done
 * events one event type.
 */
async function inActor(parent: AnyActorRef, work: () => Promise<unknown>): Promise<unknown> {
  const actor = createActor(itemAttemptLogic, { parent, id: 'map-item', input: { work } });
  const outcome = await new Promise<Outcome>((resolve, reject) => {
    actor.subscribe({ complete: () => resolve(actor.getSnapshot().output as Outcome), error: reject });
    actor.start();
  });
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/** One attempt of `item`, by what the step's items run. */
async function attemptItem(parts: ItemRunParts, item: MapItem, attempt: number, signal: AbortSignal) {
  const { settings, scope, context } = parts;
  if (settings.runs === 'function') {
    const run = settings.run as (item: unknown, ctx: MapItemContext<unknown>) => unknown;
    const itemContext: MapItemContext<unknown> = {
      index: item.index,
      itemId: item.itemId,
      runId: item.childId,
      attempt,
      state: context.state as Readonly<unknown>,
      inputs: context.inputs,
      signal,
      idempotencyKey: item.childId,
    };
    return inActor(scope.self, async () => run(item.item, itemContext));
  }
  if (settings.runs === 'crew') {
    const crew = settings.run as ChildDefinition<CrewOutput>;
    return runCrewItem(crew, item, crewItemInputs(settings.inputs, item), scope, signal);
  }
  if (settings.runs === 'flow') {
    const flow = settings.run as ComposableFlow;
    return runFlowItem(flow, item, crewItemInputs(settings.inputs, item), scope, signal);
  }
  throw new InternalError('map step', `items that run "${String(settings.runs)}"`);
}

/**
 * One attempt under the item's time limit (`step_timeout`, on the run's clock) when it has one. A crew
 * attempt that ran out of time is awaited until its run settled (it honours its signal), so that its
 * retry goes on with a run no one holds.
 */
async function limitedAttempt(parts: ItemRunParts, item: MapItem, attempt: number): Promise<unknown> {
  const { timeoutMs } = parts.settings;
  if (timeoutMs === undefined) return attemptItem(parts, item, attempt, parts.signal);
  let running: Promise<unknown> | undefined;
  const expired = () => new StepTimeoutError(`${parts.scope.step}" item "${item.itemId}`, timeoutMs);
  try {
    return await withTimeLimit(
      parts.signal,
      timeoutMs,
      expired,
      (signal) => {
        running = attemptItem(parts, item, attempt, signal);
        return running;
      },
      parts.scope.clock,
    );
  } catch (error) {
    if (parts.settings.runs === 'crew') await running?.catch(() => undefined);
    throw error;
  }
}

/**
 * Runs `item` to its end: its attempts, each after the backoff the task retry rules give (the
 * provider's `retry-after`, else `retryDelayMs` doubled per attempt, jittered, capped at 30 s, on the
 * run's clock), while the failure is retryable and `retries` allow. Resolves with the item completed
 * or failed; rejects only when the run stops.
 */
export async function runItem(parts: ItemRunParts, item: MapItem): Promise<SettledItem> {
  const { retries, retryDelayMs } = parts.settings;
  parts.attempting(item, 1);
  for (let attempt = 1; ; attempt += 1) {
    try {
      const output = await limitedAttempt(parts, item, attempt);
      return { itemId: item.itemId, status: 'completed', output };
    } catch (error) {
      parts.signal.throwIfAborted();
      const failure = toFailure(error);
      if (!failure.retryable || attempt > retries) {
        return { itemId: item.itemId, status: 'failed', error: plainFailure(failure) };
      }
      const delay = retryDelay(retryDelayMs, attempt, failure, `${item.childId}:${attempt}`);
      parts.attempting(item, attempt + 1);
      await sleep(parts.scope.clock, delay, parts.signal);
    }
  }
}

/** A failure as an item result keeps it: message, code, retry flag and details. */
function plainFailure(failure: Failure & { retryAfterMs?: number }): Failure {
  const { retryAfterMs: _after, ...rest } = failure;
  return rest;
}

/** Resolves after `ms` of `clock`; rejects with the signal's reason on abort. */
function sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal.reason);
    };
    const handle = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
