import {
  AnswerRequiredError,
  DeadlinePassedError,
  FlowMismatchError,
  NotPausedError,
  NoWaiterError,
  RunNotFoundError,
  StoreRequiredError,
  UnknownRouteError,
} from '../../errors.js';
import type { PendingStep } from '../../machines/flow/waits.js';
import type { RunHead, Store } from '../../stores/store.js';
import type { RunLineage } from '../../types.js';
import { type ClaimDecision, claimStoredRun } from '../durable/claim.js';
import { decodeRunValue } from '../durable/codec.js';
import { headFacts, unfinishedFork } from '../durable/history-page.js';
import type { RunOwner } from '../durable/run-owner.js';
import type { Clock } from '../engine/clock.js';
import { crewStepAnswers, isCrewAnswer } from './crew-steps.js';
import type { FlowDefinition } from './definition.js';
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

/** What `resume` takes as a human's answer: the route chosen, feedback, and which step (when several wait). */
export interface HumanAnswerInput {
  route: string;
  feedback?: unknown;
  /** The waiting step answered; needed only when several wait. */
  step?: string;
}

/**
 * Checks an answer to a paused run before anything runs: it must choose one of the waiting step's
 * routes (`unknown_route`), and name the step when several wait (`answer_required`).
 */
export function checkAnswer(
  definition: FlowDefinition<unknown>,
  snapshot: FlowSnapshot,
  answer: unknown,
): StepAnswer {
  const pending = snapshot.pending ?? [];
  const waiting = pending.map((p) => p.step);
  const given = answer as Partial<HumanAnswerInput> | undefined;
  if (typeof given !== 'object' || given === null || typeof given.route !== 'string') {
    throw new AnswerRequiredError(
      definition.name,
      snapshot.id,
      waiting,
      'resume it with { route, feedback? }',
    );
  }
  const step = given.step ?? (pending.length === 1 ? pending[0]?.step : undefined);
  if (step === undefined) {
    throw new AnswerRequiredError(
      definition.name,
      snapshot.id,
      waiting,
      'name the step the answer is for ({ step })',
    );
  }
  const entry = pending.find((p) => p.step === step);
  if (entry === undefined) {
    throw new AnswerRequiredError(definition.name, snapshot.id, waiting, `"${step}" is not one of them`);
  }
  if (entry.kind === 'event') {
    throw new AnswerRequiredError(
      definition.name,
      snapshot.id,
      waiting,
      `"${step}" waits for event "${entry.event}": signal it (flow.signal(id, '${entry.event}', payload))`,
    );
  }
  if (entry.kind === 'crew') {
    throw new AnswerRequiredError(
      definition.name,
      snapshot.id,
      waiting,
      `"${step}" waits for its crew "${entry.crew}": answer it with { approvals, reviews }`,
    );
  }
  if (entry.kind === 'flow') {
    throw new AnswerRequiredError(
      definition.name,
      snapshot.id,
      waiting,
      `"${step}" waits for its flow "${entry.flow}" at ${entry.path}`,
    );
  }
  if (!entry.routes.includes(given.route))
    throw new UnknownRouteError(step, given.route, entry.routes, 'human');
  return { kind: 'human', step, route: given.route, feedback: given.feedback };
}

/** What a claim for `resume` or `signal` brings to a paused run. */
export type ResumeRequest =
  /** A human's answer (unchecked), or none: a paused run without one goes on only with its due timeouts. */
  | { kind: 'answer'; answer: unknown }
  /** An outside event for the run's wait steps (`flow.signal`). */
  | { kind: 'signal'; event: string; payload: unknown };

/** Whether waiting step `pending` is past its deadline on `now`: it takes no signal or answer any more. */
function isLate(pending: PendingStep, now: number): boolean {
  return pending.timeoutAt !== undefined && pending.timeoutAt <= now;
}

/** `deadline_passed` for waiting step `late`, which a signal or answer reached at `now`. */
function lateError(definition: FlowDefinition<unknown>, id: string, late: PendingStep, now: number) {
  return new DeadlinePassedError(definition.name, id, late.step, late.timeoutAt as number, now);
}

/**
 * The answers a request gives a paused run, checked against what it waits for: a human's answer
 * (`checkAnswer`); a signal completes every wait for its event (`no_waiter` when none waits for it);
 * no answer times out every waiting step whose deadline passed on `now` (`answer_required` when none did).
 * The deadline decides, not when a runner last looked: a step past its deadline on `now` takes no
 * signal or answer (`deadline_passed` when none is left to take it), and is left to time out.
 */
function answersFor(
  definition: FlowDefinition<unknown>,
  snapshot: FlowSnapshot,
  request: ResumeRequest,
  now: number,
): StepAnswer[] {
  const pending = snapshot.pending ?? [];
  if (request.kind === 'signal') {
    const { event, payload } = request;
    const all = pending.filter((p) => p.kind === 'event' && p.event === event);
    const waits = all.filter((p) => !isLate(p, now));
    if (all[0] !== undefined && waits.length === 0) throw lateError(definition, snapshot.id, all[0], now);
    if (waits.length === 0) {
      const waiting = pending.map((p) =>
        p.kind === 'event'
          ? `"${p.event}"`
          : p.kind === 'crew'
            ? `the crew of "${p.step}"`
            : `a human at "${p.step}"`,
      );
      const why = waiting.length === 0 ? 'it waits for nothing' : `it waits for ${waiting.join(', ')}`;
      throw new NoWaiterError(definition.name, snapshot.id, event, why);
    }
    return waits.map((w) => ({ kind: 'signal', step: w.step, event, payload }));
  }
  if (isCrewAnswer(request.answer)) {
    return crewStepAnswers(definition.name, snapshot.id, pending, request.answer);
  }
  if (request.answer !== undefined) {
    const answer = checkAnswer(definition, snapshot, request.answer);
    const late = pending.find((p) => p.step === answer.step && isLate(p, now));
    if (late !== undefined) throw lateError(definition, snapshot.id, late, now);
    return [answer];
  }
  const due = pending.filter((p) => p.timeoutAt !== undefined && p.timeoutAt <= now);
  if (due.length === 0) {
    const what = pending.some((p) => p.kind === 'human')
      ? 'resume it with { route, feedback? }'
      : pending.some((p) => p.kind === 'crew')
        ? 'answer its crews with { approvals, reviews }'
        : 'signal the event it waits for';
    throw new AnswerRequiredError(
      definition.name,
      snapshot.id,
      pending.map((p) => p.step),
      `${what} (no deadline has passed)`,
    );
  }
  return due.map((p) => ({ kind: 'timeout', step: p.step }));
}

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
    answers = answersFor(definition, snapshot, request, clock.now());
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
