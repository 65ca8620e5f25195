import {
  FlowMismatchError,
  NotPausedError,
  NoWaiterError,
  RunNotFoundError,
  StoreRequiredError,
} from '../../errors.js';
import type { RunHead, Store } from '../../stores/store.js';
import type { RunLineage } from '../../types.js';
import { type ClaimDecision, claimStoredRun } from '../durable/claim.js';
import { decodeRunValue } from '../durable/codec.js';
import { headFacts, unfinishedFork } from '../durable/history-page.js';
import type { RunOwner } from '../durable/run-owner.js';
import type { Clock } from '../engine/clock.js';
import type { FlowDefinition } from './definition.js';
import { answersFor, type ResumeRequest } from './flow-answers.js';
import type { FlowOutput } from './flow-output.js';
import { loadSnapshot, type StoredFlowSnapshot } from './flow-store.js';
import type { FlowSnapshot, StepAnswer } from './snapshot.js';
import type { WithId } from './state.js';

/** The store a flow operation uses: the one it was given, else the flow's; `store_required` without. */
export function storeFor(
  definition: FlowDefinition<unknown>,
  store: Store | undefined,
  needs: string,
): Store {
  const chosen = store ?? definition.store;
  if (chosen === undefined) throw new StoreRequiredError(`Flow "${definition.name}"`, needs);
  return chosen;
}

/** The snapshot of run `id`, which must exist (`run_not_found`) and be a run of this flow (`flow_mismatch`). */
export async function storedRunOf(
  definition: FlowDefinition<unknown>,
  store: Store,
  id: string,
  what: string,
): Promise<FlowSnapshot> {
  const snapshot = await loadSnapshot(store, id);
  if (snapshot === undefined) throw new RunNotFoundError(`Flow "${definition.name}" ${what}`, id);
  if (snapshot.flow !== definition.name) throw new FlowMismatchError(definition.name, id, snapshot.flow);
  return snapshot;
}

/** A completed run's result as its snapshot holds it (nothing runs; `totalTimeMs` 0). */
export function storedOutput<S>(snapshot: FlowSnapshot): FlowOutput<WithId<S>> {
  const last = snapshot.trail.at(-1);
  return {
    id: snapshot.id,
    state: structuredClone(snapshot.state) as WithId<S>,
    output: last === undefined ? undefined : snapshot.outputs[last],
    trail: [...snapshot.trail],
    outputs: { ...snapshot.outputs },
    emitted: [...snapshot.emitted],
    status: snapshot.status === 'failed' ? 'failed' : 'completed',
    errors: { ...snapshot.errors },
    failures: { ...snapshot.failures },
    totalTimeMs: 0,
  };
}

/** A fork's inputs: the stored state (without its id) with the given inputs merged over it. */
export function forkInputs(
  snapshot: FlowSnapshot,
  inputs: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const { id: _sourceId, ...state } = structuredClone(snapshot.state) as Record<string, unknown>;
  return { ...state, ...(inputs ?? {}) };
}

export type { HumanAnswerInput, ResumeRequest } from './flow-answers.js';

/** What claiming a stored flow run for `resume` found. */
export type FlowClaim =
  /** The run is this owner's: go on from `snapshot` (absent when it died before its first header), with `answers`. */
  | {
      kind: 'claimed';
      snapshot: StoredFlowSnapshot | undefined;
      inputs: Record<string, unknown>;
      answers?: StepAnswer[];
      /** A fork's lineage, as its head keeps it. */
      lineage?: RunLineage;
    }
  /** The run completed: its stored result, nothing to run. */
  | { kind: 'completed'; output: FlowOutput<unknown> };

/** The error of a request that a run not paused cannot take (`not_paused`, or `no_waiter` for a signal). */
function notWaiting(definition: FlowDefinition<unknown>, id: string, request: ResumeRequest, status: string) {
  return request.kind === 'signal'
    ? new NoWaiterError(definition.name, id, request.event, `the run is ${status}`)
    : new NotPausedError(definition.name, id, status);
}

/**
 * Claims stored run `id` of `definition` for `owner`, checking it first: `run_not_found`,
 * `flow_mismatch`, what the request gives a paused run (`answersFor`) and that a run not paused gets no
 * answer (`not_paused`) or signal (`no_waiter`), `run_locked` while another owner lives. Of two answers
 * or signals at once, one claims the run; the other gets `run_locked` while the winner runs, and
 * `not_paused` (`no_waiter`) once it moved on.
 */
export async function claimFlowRun(
  definition: FlowDefinition<unknown>,
  owner: RunOwner,
  clock: Clock,
  request: ResumeRequest,
): Promise<FlowClaim> {
  const { store, id } = owner;
  let snapshot: StoredFlowSnapshot | undefined;
  let answers: StepAnswer[] | undefined;
  const answering = request.kind === 'signal' || request.answer !== undefined;
  const decide = async (head: RunHead): Promise<ClaimDecision> => {
    checkHeadOf(definition, head);
    if (head.status !== 'paused') {
      if (answering) throw notWaiting(definition, id, request, head.status);
      return head.status === 'completed' ? 'leave' : 'claim';
    }
    snapshot = await loadSnapshot(store, id);
    if (snapshot === undefined) throw new RunNotFoundError(`Flow "${definition.name}" resume`, id);
    // Read after the head: another answer may have claimed the run in between, and it moved on.
    if (snapshot.status !== 'paused') {
      throw notWaiting(definition, id, request, `${snapshot.status}: another answer was taken first`);
    }
    answers = answersFor(
      { name: definition.name, id, pending: snapshot.pending ?? [] },
      request,
      clock.now(),
    );
    return 'claim';
  };
  const outcome = await claimStoredRun({
    owner,
    clock,
    what: `Flow "${definition.name}" resume`,
    decide,
    ...(answering
      ? {
          lostRace: (head: RunHead) =>
            notWaiting(definition, id, request, `${head.status}: another answer was taken first`),
        }
      : {}),
  });
  if (outcome === undefined) throw new RunNotFoundError(`Flow "${definition.name}" resume`, id);
  if (!outcome.claimed) {
    const stored = await loadSnapshot(store, id);
    if (stored === undefined) throw new RunNotFoundError(`Flow "${definition.name}" resume`, id);
    return { kind: 'completed', output: withLineage(storedOutput(stored), outcome.head) };
  }
  // Read once the run is this owner's: every write of the owner before it has landed.
  snapshot = answers === undefined ? await loadSnapshot(store, id) : snapshot;
  const { forkedFrom } = headFacts(outcome.head);
  if (snapshot === undefined && forkedFrom !== undefined) {
    await owner.releaseQuietly('failed');
    throw unfinishedFork('flow_runs', id, forkedFrom);
  }
  const inputs = (snapshot?.inputs ?? headInputs(outcome.head)) as Record<string, unknown>;
  return {
    kind: 'claimed',
    snapshot,
    inputs,
    ...(answers === undefined ? {} : { answers }),
    ...(forkedFrom === undefined ? {} : { lineage: forkedFrom }),
  };
}

/** A stored result with the lineage of a fork's head. */
function withLineage<S>(output: FlowOutput<S>, head: RunHead): FlowOutput<S> {
  const { forkedFrom } = headFacts(head);
  return forkedFrom === undefined ? output : { ...output, forkedFrom };
}

/** Refuses a head that is not a run of this flow (`flow_mismatch`). */
function checkHeadOf(definition: FlowDefinition<unknown>, head: RunHead): void {
  if (head.kind !== 'flow' || head.name !== definition.name) {
    throw new FlowMismatchError(
      definition.name,
      head.id,
      head.kind === 'flow' ? head.name : `crew ${head.name}`,
    );
  }
}

/** The inputs a run's head keeps (a run that died before its first header). */
function headInputs(head: RunHead): unknown {
  const data = head.data as { inputs?: unknown } | null;
  return data?.inputs === undefined ? {} : decodeRunValue(data.inputs as never);
}
