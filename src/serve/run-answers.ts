import {
  InvalidRequestError,
  NotRunningError,
  RunLockedError,
  RunNotFoundError,
  UnknownDefinitionError,
} from '../errors.js';
import { leaseIsLive } from '../runtime/durable/identity.js';
import type { CrewAnswerInput } from '../runtime/flow/crew-steps.js';
import type { HumanAnswerInput } from '../runtime/flow/flow-resume.js';
import type { RunHead, Store } from '../stores/store.js';
import type { Catalog, ServedDefinition, ServedResumeOptions, StartedRun } from './definitions.js';
import type { LiveRuns } from './live-runs.js';
import type { RunRef, RunStarter } from './run-starter.js';
import { summaryOf } from './run-views.js';

/** What the answering routes work with. */
export interface AnswerDesk {
  store: Store;
  catalog: Catalog;
  live: LiveRuns;
  /** Where runs start: it reaches the workers of the run queue, when the server has one. */
  starter: Pick<RunStarter, 'abortQueued'>;
}

/** An answer as a resume takes it: a flow's human answer, crew answers, or nothing. */
export type ResumeAnswer = HumanAnswerInput | CrewAnswerInput | undefined;

/**
 * The stored head of run `id` and the served definition it is a run of (found by the head's kind and
 * name); `run_not_found` naming `route`, or `unknown_definition` when this server serves none.
 */
export async function servedRunOf(
  desk: AnswerDesk,
  route: string,
  id: string,
): Promise<[RunHead, ServedDefinition]> {
  const head = await desk.store.readRun(id);
  if (head === undefined) throw new RunNotFoundError(route, id);
  const served = desk.catalog.get(head.name);
  if (served.kind !== head.kind) {
    const known = desk.catalog.list().map((d) => d.name);
    throw new UnknownDefinitionError(`${head.kind} ${head.name}`, known, 'This server');
  }
  return [head, served];
}

/**
 * Runs `goOn` (a resume or a signal, given the options that track it) and resolves once the run was
 * claimed and started here, tracked as live until it settles; rejects with what refused it first
 * (`not_paused`, `run_locked`, `answer_required`, `no_waiter`…). A run that had ended resolves at once.
 */
async function goOnTracked(
  desk: AnswerDesk,
  served: ServedDefinition,
  goOn: (options: ServedResumeOptions) => Promise<unknown>,
): Promise<void> {
  const controller = new AbortController();
  let heard: (run: StartedRun) => void = () => {};
  const started = new Promise<StartedRun>((resolve) => {
    heard = resolve;
  });
  const result = goOn({
    store: desk.store,
    events: 'store',
    signal: controller.signal,
    onRun: (run) => {
      desk.live.track(run.id, { kind: served.kind, definition: served.name, ...run, result }, controller);
      heard(run);
    },
  });
  desk.live.asked(controller, result);
  await Promise.race([started, result]);
}

/** `POST /runs/:id/resume`: goes on with stored run `id` here, with `answer`. */
export async function resumeRun(desk: AnswerDesk, id: string, answer: ResumeAnswer): Promise<RunRef> {
  const route = 'POST /runs/:id/resume';
  const [, served] = await servedRunOf(desk, route, id);
  if (served.kind === 'crew') {
    if (answer !== undefined && 'route' in answer) {
      throw new InvalidRequestError(route, [
        { path: 'body.route', message: 'a crew run takes { approvals } or { reviews }, not a route' },
      ]);
    }
    const crewAnswers = (answer ?? {}) as CrewAnswerInput;
    const answers = {
      ...(crewAnswers.approvals === undefined ? {} : { approvals: crewAnswers.approvals }),
      ...(crewAnswers.reviews === undefined ? {} : { reviews: crewAnswers.reviews }),
    };
    // Streams as a run the server starts does: its text reaches the event streams as it is written.
    await goOnTracked(desk, served, (options) =>
      served.crew.resume(id, { ...options, ...answers, stream: true }),
    );
  } else {
    await goOnTracked(desk, served, (options) => served.flow.resume(id, answer, options));
  }
  return { id, definition: served.name, kind: served.kind };
}

/** `POST /runs/:id/signal`: sends `event` with `payload` to stored flow run `id`, which goes on here. */
export async function signalRun(
  desk: AnswerDesk,
  id: string,
  event: string,
  payload: unknown,
): Promise<RunRef> {
  const route = 'POST /runs/:id/signal';
  const [, served] = await servedRunOf(desk, route, id);
  if (served.kind === 'crew') {
    throw new InvalidRequestError(route, [
      { path: 'params.id', message: `run "${id}" is a crew run: only flow runs take signals` },
    ]);
  }
  await goOnTracked(desk, served, (options) => served.flow.signal(id, event, payload, options));
  return { id, definition: served.name, kind: served.kind };
}

/** The stored head of run `id`; `run_not_found` when the store holds none. */
async function headOf(store: Store, route: string, id: string): Promise<RunHead> {
  const head = await store.readRun(id);
  if (head === undefined) throw new RunNotFoundError(route, id);
  return head;
}

/**
 * `POST /runs/:id/abort`: aborts run `id` and resolves once it is kept as aborted — when this process
 * runs it, or when a worker of this server's run queue does (that worker is asked to abort it);
 * `run_locked` when another owner runs it, `not_running` when nothing does.
 */
export async function abortRun(desk: AnswerDesk, id: string) {
  const route = 'POST /runs/:id/abort';
  const reason = `aborted by ${route}`;
  const here = await desk.live.abort(id, new Error(reason));
  let head = await headOf(desk.store, route, id);
  // Held elsewhere: by a worker of the run queue (which is asked, and heard once the job ended), or not.
  const queued = !here && leaseIsLive(head.lease, Date.now()) && (await desk.starter.abortQueued(id, reason));
  if (queued) head = await headOf(desk.store, route, id);
  if (!here) {
    const { lease } = head;
    if (lease !== null && leaseIsLive(lease, Date.now()))
      throw new RunLockedError(route, id, lease.owner, lease.expiresAt);
    if (!queued) throw new NotRunningError(id, head.status);
  }
  const { id: runId, definition, kind, status } = summaryOf(head);
  return { id: runId, definition, kind, status };
}
