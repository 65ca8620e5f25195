import {
  AnswerRequiredError,
  FlowMismatchError,
  NotPausedError,
  RunNotFoundError,
  StoreRequiredError,
  UnknownRouteError,
} from '../../errors.js';
import type { RunHead, Store } from '../../stores/store.js';
import { type ClaimDecision, claimStoredRun, type LegacyRun } from '../durable/claim.js';
import { decodeRunValue, encodeRunValue } from '../durable/codec.js';
import type { RunOwner } from '../durable/run-owner.js';
import type { Clock } from '../engine/clock.js';
import type { FlowDefinition } from './definition.js';
import type { FlowOutput } from './flow-run.js';
import { loadSnapshot, type StoredFlowSnapshot } from './flow-store.js';
import type { FlowSnapshot, HumanAnswer } from './snapshot.js';
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

/** Refuses an answer to a run that waits for none (`not_paused`). */
export function checkNoAnswer(
  definition: FlowDefinition<unknown>,
  snapshot: FlowSnapshot,
  answer: unknown,
): void {
  if (answer !== undefined) throw new NotPausedError(definition.name, snapshot.id, snapshot.status);
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
): HumanAnswer {
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
  if (!entry.routes.includes(given.route)) throw new UnknownRouteError(step, given.route, entry.routes);
  return { step, route: given.route, feedback: given.feedback };
}

/** What claiming a stored flow run for `resume` found. */
export type FlowClaim =
  /** The run is this owner's: go on from `snapshot` (absent when it died before its first header), with `answer`. */
  | {
      kind: 'claimed';
      snapshot: StoredFlowSnapshot | undefined;
      inputs: Record<string, unknown>;
      answer?: HumanAnswer;
    }
  /** The run completed: its stored result, nothing to run. */
  | { kind: 'completed'; output: FlowOutput<unknown> };

/**
 * Claims stored run `id` of `definition` for `owner`, checking it first: `run_not_found`,
 * `flow_mismatch`, an answer for a paused run (`answer_required`, `unknown_route`) and none for another
 * (`not_paused`), `run_locked` while another owner lives. Of two answers at once, one claims the run;
 * the other gets `run_locked` while the winner runs, `not_paused` once it moved on.
 */
export async function claimFlowRun(
  definition: FlowDefinition<unknown>,
  owner: RunOwner,
  clock: Clock,
  answer: unknown,
): Promise<FlowClaim> {
  const { store, id } = owner;
  let snapshot: StoredFlowSnapshot | undefined;
  let checked: HumanAnswer | undefined;
  const decide = async (head: RunHead): Promise<ClaimDecision> => {
    if (head.kind !== 'flow' || head.name !== definition.name) {
      throw new FlowMismatchError(
        definition.name,
        id,
        head.kind === 'flow' ? head.name : `crew ${head.name}`,
      );
    }
    if (head.status !== 'paused') {
      if (answer !== undefined) throw new NotPausedError(definition.name, id, head.status);
      return head.status === 'completed' ? 'leave' : 'claim';
    }
    snapshot = await loadSnapshot(store, id);
    if (snapshot === undefined) throw new RunNotFoundError(`Flow "${definition.name}" resume`, id);
    // Read after the head: another answer may have claimed the run in between, and it moved on.
    if (snapshot.status !== 'paused') {
      throw new NotPausedError(definition.name, id, `${snapshot.status}: another answer was taken first`);
    }
    checked = checkAnswer(definition, snapshot, answer);
    return 'claim';
  };
  const outcome = await claimStoredRun({
    owner,
    clock,
    what: `Flow "${definition.name}" resume`,
    decide,
    legacy: () => legacyFlowRun(store, id),
    ...(answer === undefined
      ? {}
      : {
          lostRace: (head: RunHead) =>
            new NotPausedError(definition.name, id, `${head.status}: another answer was taken first`),
        }),
  });
  if (outcome === undefined) throw new RunNotFoundError(`Flow "${definition.name}" resume`, id);
  if (!outcome.claimed) {
    const stored = await loadSnapshot(store, id);
    if (stored === undefined) throw new RunNotFoundError(`Flow "${definition.name}" resume`, id);
    return { kind: 'completed', output: storedOutput(stored) };
  }
  // Read once the run is this owner's: every write of the owner before it has landed.
  snapshot = checked === undefined ? await loadSnapshot(store, id) : snapshot;
  const inputs = (snapshot?.inputs ?? headInputs(outcome.head)) as Record<string, unknown>;
  return { kind: 'claimed', snapshot, inputs, ...(checked === undefined ? {} : { answer: checked }) };
}

/** A flow run stored before run heads existed, as its header tells. */
async function legacyFlowRun(store: Store, id: string): Promise<LegacyRun | undefined> {
  const snapshot = await loadSnapshot(store, id);
  if (snapshot === undefined) return undefined;
  return {
    kind: 'flow',
    name: snapshot.flow,
    status: snapshot.status,
    data: { inputs: encodeRunValue(snapshot.inputs) },
  };
}

/** The inputs a run's head keeps (a run that died before its first header). */
function headInputs(head: RunHead): unknown {
  const data = head.data as { inputs?: unknown } | null;
  return data?.inputs === undefined ? {} : decodeRunValue(data.inputs as never);
}
