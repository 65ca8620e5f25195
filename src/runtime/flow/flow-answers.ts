import {
  AnswerRequiredError,
  DeadlinePassedError,
  InvalidOptionError,
  NoWaiterError,
  UnknownRouteError,
} from '../../errors.js';
import {
  type LeafWait,
  leafWaits,
  PATH_SEPARATOR,
  type PendingFlow,
  type PendingStep,
} from '../../machines/flow/waits.js';
import type { ApprovalAnswer, ReviewAnswer } from '../../types.js';
import { type CrewAnswerInput, crewStepAnswers, isCrewAnswer } from './crew-steps.js';
import type { ChildRequest, StepAnswer } from './snapshot.js';

/** A paused run as its answers are checked: its flow's name, its id, and what it waits for. */
export interface WaitingRun {
  name: string;
  id: string;
  pending: readonly PendingStep[];
}

/** What `resume` takes as a human's answer: the route chosen, feedback, and which step (when several wait). */
export interface HumanAnswerInput {
  route: string;
  feedback?: unknown;
  /**
   * The waiting step answered: needed only when several wait. A step of a child flow is named by its
   * path (`'review › approve'`), or by its flow step's name when only one human waits in it.
   */
  step?: string;
}

/** The run a flow step's paused child is, as its answers are checked. */
const childRun = (p: PendingFlow): WaitingRun => ({ name: p.flow, id: p.runId, pending: p.pending });

/** The answer a flow step's paused child goes on with, for the parent. */
const toChild = (p: PendingFlow, request: ChildRequest): StepAnswer => ({
  kind: 'flow',
  step: p.step,
  nodeId: p.nodeId,
  runId: p.runId,
  request,
});

/** Where each innermost wait is, named by path from the run: `"review › approve"`. */
function leafNames(run: WaitingRun): string[] {
  return leafWaits(run.pending).map((l) => l.path.join(PATH_SEPARATOR));
}

/** Whether waiting step `pending` is past its deadline on `now`: it takes no signal or answer any more. */
function isLate(pending: PendingStep, now: number): boolean {
  return pending.timeoutAt !== undefined && pending.timeoutAt <= now;
}

/** `deadline_passed` for waiting step `late` of `run`, which a signal or answer reached at `now`. */
function lateError(run: { name: string; id: string }, late: PendingStep, now: number) {
  return new DeadlinePassedError(run.name, run.id, late.step, late.timeoutAt as number, now);
}

/** A path's first step, and the rest of it (undefined: no rest). */
function splitPath(step: string | undefined): [string | undefined, string | undefined] {
  if (step === undefined) return [undefined, undefined];
  const at = step.indexOf(PATH_SEPARATOR);
  return at < 0 ? [step, undefined] : [step.slice(0, at), step.slice(at + PATH_SEPARATOR.length)];
}

/**
 * Checks a human's answer to paused run `run` before anything runs: it must choose one of the
 * waiting step's routes (`unknown_route`), name the step when several wait (`answer_required`), and
 * reach it before its deadline (`deadline_passed`). A step of a child flow is reached by its path
 * (`review › approve`), or through its flow step when only one thing waits in it: the answer is the
 * flow step's, for its child.
 */
export function checkAnswer(run: WaitingRun, answer: unknown, now: number): StepAnswer {
  const { pending } = run;
  const waiting = leafNames(run);
  const given = answer as Partial<HumanAnswerInput> | undefined;
  if (typeof given !== 'object' || given === null || typeof given.route !== 'string') {
    throw new AnswerRequiredError(run.name, run.id, waiting, 'resume it with { route, feedback? }');
  }
  const [first, rest] = splitPath(given.step);
  const step = first ?? (pending.length === 1 ? pending[0]?.step : undefined);
  if (step === undefined) {
    throw new AnswerRequiredError(run.name, run.id, waiting, 'name the step the answer is for ({ step })');
  }
  const entry = pending.find((p) => p.step === step);
  if (entry === undefined) {
    throw new AnswerRequiredError(run.name, run.id, waiting, `"${given.step}" is not one of them`);
  }
  if (entry.kind === 'flow') {
    const inner = {
      route: given.route,
      feedback: given.feedback,
      ...(rest === undefined ? {} : { step: rest }),
    };
    checkAnswer(childRun(entry), inner, now);
    return toChild(entry, { kind: 'answer', answer: inner });
  }
  if (rest !== undefined) {
    throw new AnswerRequiredError(
      run.name,
      run.id,
      waiting,
      `"${step}" is not a flow step: "${given.step}" names nothing`,
    );
  }
  if (entry.kind === 'event') {
    const how = `signal it (flow.signal(id, '${entry.event}', payload))`;
    throw new AnswerRequiredError(
      run.name,
      run.id,
      waiting,
      `"${step}" waits for event "${entry.event}": ${how}`,
    );
  }
  if (entry.kind === 'crew') {
    const what = `"${step}" waits for its crew "${entry.crew}": answer it with { approvals, reviews }`;
    throw new AnswerRequiredError(run.name, run.id, waiting, what);
  }
  if (!entry.routes.includes(given.route))
    throw new UnknownRouteError(step, given.route, entry.routes, 'human');
  if (isLate(entry, now)) throw lateError(run, entry, now);
  return { kind: 'human', step, route: given.route, feedback: given.feedback };
}

/** The leaf waits of `pending` for event `event`. */
const eventLeaves = (pending: readonly PendingStep[], event: string): LeafWait[] =>
  leafWaits(pending).filter((l) => l.wait.kind === 'event' && l.wait.event === event);

/**
 * The answers a signal of `event` gives paused run `run`: every wait for it completes, a child
 * flow's too (its flow step's answer carries the signal down); `no_waiter` naming what waits when
 * none waits for it, `deadline_passed` when every wait for it is past its deadline.
 */
export function signalAnswers(run: WaitingRun, event: string, payload: unknown, now: number): StepAnswer[] {
  const answers: StepAnswer[] = [];
  let late: { run: { name: string; id: string }; wait: PendingStep } | undefined;
  for (const p of run.pending) {
    if (p.kind === 'event' && p.event === event) {
      if (isLate(p, now)) late ??= { run, wait: p };
      else answers.push({ kind: 'signal', step: p.step, event, payload });
    }
    if (p.kind !== 'flow') continue;
    const leaves = eventLeaves(p.pending, event);
    const open = leaves.filter((l) => !isLate(l.wait, now));
    if (open.length > 0) answers.push(toChild(p, { kind: 'signal', event, payload }));
    else if (leaves[0] !== undefined)
      late ??= { run: { name: p.flow, id: leaves[0].runId ?? p.runId }, wait: leaves[0].wait };
  }
  if (answers.length > 0) return answers;
  if (late !== undefined) throw lateError(late.run, late.wait, now);
  const waiting = leafWaits(run.pending).map((l) => {
    const at = l.path.join(PATH_SEPARATOR);
    return l.wait.kind === 'event'
      ? `"${l.wait.event}" at "${at}"`
      : l.wait.kind === 'crew'
        ? `the crew of "${at}"`
        : `a human at "${at}"`;
  });
  const why = waiting.length === 0 ? 'it waits for nothing' : `it waits for ${waiting.join(', ')}`;
  throw new NoWaiterError(run.name, run.id, event, why);
}

/** The call ids and task node ids the crews of `pending` wait for (a child flow's crews included). */
function crewIds(pending: readonly PendingStep[]): { calls: Set<string>; nodes: Set<string> } {
  const calls = new Set<string>();
  const nodes = new Set<string>();
  for (const { wait } of leafWaits(pending)) {
    if (wait.kind !== 'crew') continue;
    for (const w of wait.pending) {
      if (w.kind === 'approval') calls.add(w.callId);
      else nodes.add(w.nodeId);
    }
  }
  return { calls, nodes };
}

/** The entries of `record` whose key `keep` takes, and the others. */
function split<T>(record: Readonly<Record<string, T>> | undefined, keep: (key: string) => boolean) {
  const taken: Record<string, T> = {};
  const left: Record<string, T> = {};
  for (const [key, value] of Object.entries(record ?? {})) (keep(key) ? taken : left)[key] = value;
  return { taken, left };
}

/**
 * The answers crew answers `{ approvals, reviews, step? }` give paused run `run`: each goes to the
 * crew that waits for its id — a child flow's crew through its flow step (`step` may name the flow
 * step, or a path into it) — the rest to the run's own crews (see `crewStepAnswers`).
 */
export function crewAnswers(run: WaitingRun, given: CrewAnswerInput): StepAnswer[] {
  const [first, rest] = splitPath(given.step);
  let approvals: Readonly<Record<string, ApprovalAnswer>> | undefined = given.approvals;
  let reviews: Readonly<Record<string, ReviewAnswer>> | undefined = given.reviews;
  const answers: StepAnswer[] = [];
  for (const p of run.pending) {
    if (p.kind !== 'flow' || (first !== undefined && p.step !== first)) continue;
    const { calls, nodes } = crewIds(p.pending);
    const a = split(approvals, (key) => calls.has(key));
    const r = split(reviews, (key) => nodes.has(key));
    if (Object.keys(a.taken).length + Object.keys(r.taken).length === 0) continue;
    const inner: CrewAnswerInput = {
      approvals: a.taken,
      reviews: r.taken,
      ...(rest === undefined ? {} : { step: rest }),
    };
    crewAnswers(childRun(p), inner);
    answers.push(toChild(p, { kind: 'answer', answer: inner }));
    approvals = a.left;
    reviews = r.left;
  }
  const left = Object.keys(approvals ?? {}).length + Object.keys(reviews ?? {}).length;
  if (answers.length > 0 && left === 0) return answers;
  const nested = leafWaits(run.pending).filter((l) => l.wait.kind === 'crew' && l.path.length > 1);
  if (left > 0 && nested.length > 0 && !run.pending.some((p) => p.kind === 'crew')) {
    throw unknownCrewId(run, approvals, reviews, nested);
  }
  const own = { approvals, reviews, ...(given.step === undefined ? {} : { step: given.step }) };
  return [...answers, ...crewStepAnswers(run.name, run.id, run.pending, own)];
}

/** `invalid_option` for crew answers naming ids no crew waits for, naming where crews wait. */
function unknownCrewId(
  run: WaitingRun,
  approvals: Readonly<Record<string, unknown>> | undefined,
  reviews: Readonly<Record<string, unknown>> | undefined,
  crews: LeafWait[],
): InvalidOptionError {
  const where = `Flow "${run.name}" resume`;
  const [key] = Object.keys(approvals ?? {});
  const option = key === undefined ? 'reviews' : 'approvals';
  const id = key ?? Object.keys(reviews ?? {})[0] ?? '';
  const at = crews.map((l) => `the crew of "${l.path.join(PATH_SEPARATOR)}"`).join(', ');
  return new InvalidOptionError(where, option, 'an id a waiting crew waits for', id, {
    message: `${where}: ${option} names "${id}", which no waiting crew waits for; ${at} wait`,
  });
}

/** What a claim for `resume` or `signal` brings a paused run. */
export type ResumeRequest = ChildRequest;

/**
 * The answers a request gives a paused run, checked against what it waits for (its child flows'
 * waits included): a human's answer (`checkAnswer`), crew answers (`crewAnswers`), a signal
 * (`signalAnswers`); no answer times out every waiting step whose deadline passed on `now` (a child
 * flow's: its flow step's child goes on with no answer, and times out its own), `answer_required`
 * when none did.
 */
export function answersFor(run: WaitingRun, request: ResumeRequest, now: number): StepAnswer[] {
  const { pending } = run;
  if (request.kind === 'signal') return signalAnswers(run, request.event, request.payload, now);
  if (isCrewAnswer(request.answer)) return crewAnswers(run, request.answer);
  if (request.answer !== undefined) return [checkAnswer(run, request.answer, now)];
  const due = pending.filter((p) => isLate(p, now));
  if (due.length === 0) {
    const leaves = leafWaits(pending).map((l) => l.wait);
    const what = leaves.some((p) => p.kind === 'human')
      ? 'resume it with { route, feedback? }'
      : leaves.some((p) => p.kind === 'crew')
        ? 'answer its crews with { approvals, reviews }'
        : 'signal the event it waits for';
    throw new AnswerRequiredError(run.name, run.id, leafNames(run), `${what} (no deadline has passed)`);
  }
  return due.map((p) =>
    p.kind === 'flow' ? toChild(p, { kind: 'answer', answer: undefined }) : { kind: 'timeout', step: p.step },
  );
}
