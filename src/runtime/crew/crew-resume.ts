import { InvalidOptionError, NotPausedError, RunNotFoundError, StoreRequiredError } from '../../errors.js';
import type { JsonValue, RunHead, Store, StoredRecord } from '../../stores/store.js';
import type { CrewPending } from '../../types.js';
import { type ClaimDecision, claimStoredRun } from '../durable/claim.js';
import { decodeRunValue } from '../durable/codec.js';
import { headFacts, unfinishedFork } from '../durable/history-page.js';
import { RUN_KEY } from '../durable/run-key.js';
import type { RunOwner } from '../durable/run-owner.js';
import type { Clock } from '../engine/clock.js';
import type { HumanAnswers } from '../run/answers.js';
import { pendingOf } from './crew-pause.js';
import { readTaskResult, type StoredTaskResult } from './crew-store.js';
import type { RunRestore } from './runnable-crew.js';
import type { Task } from './task.js';
import { checkAnswers, WaitingTasks } from './waiting-tasks.js';

/** What resuming needs of a crew. */
export interface ResumableCrew {
  readonly name: string;
  readonly store: Store | undefined;
  readonly tasks: readonly Task[];
  nodeIdOf(task: Task): string | undefined;
}

/** The task results (completed or failed) a store kept of `executionId`, in the order they were written. */
async function storedResults(
  crew: ResumableCrew,
  executionId: string,
  what: string,
  store: Store | undefined,
): Promise<StoredTaskResult[]> {
  if (store === undefined) throw new StoreRequiredError(`Crew "${crew.name}"`, `${what} a run`);
  const [rows, run, head] = await Promise.all([
    store.list('crew_task_results', executionId),
    store.get('crew_executions', executionId, RUN_KEY),
    store.readRun(executionId),
  ]);
  // A run that died before its first task result still has its head (and its inputs).
  if (rows.length === 0 && run === undefined && head?.kind !== 'crew')
    throw new RunNotFoundError(`Crew "${crew.name}" ${what}`, executionId);
  return rows.map((row) => readTaskResult(row.value));
}

/** The task's node id of a node id: its own, or a loop run's (`<task>#<iteration>`). */
export function baseNodeId(nodeId: string): string {
  const hash = nodeId.lastIndexOf('#');
  return hash < 0 ? nodeId : nodeId.slice(0, hash);
}

const byNodeId = (results: StoredTaskResult[]) => new Map(results.map((r) => [r.nodeId, r]));

/**
 * What `crew.resume(executionId)` restores: every completed result of one of the crew's tasks, and
 * the runs left waiting for a human, which go on with `answers`.
 */
export async function resumeRestore(
  crew: ResumableCrew,
  executionId: string,
  store: Store | undefined = crew.store,
  answers?: HumanAnswers,
): Promise<RunRestore> {
  const ids = new Set(crew.tasks.map((t) => crew.nodeIdOf(t)));
  const stored = await storedResults(crew, executionId, 'resume', store);
  const ofCrew = stored.filter((r) => ids.has(r.nodeId) || ids.has(baseNodeId(r.nodeId)));
  const restore: RunRestore = {
    results: byNodeId(ofCrew.filter((r) => r.status === 'completed')),
    reached: new Set(ofCrew.map((r) => r.nodeId)),
  };
  const waiting = new Map(
    ofCrew.flatMap((result) =>
      result.status === 'paused' && result.waiting !== undefined
        ? [[result.nodeId, { result, wait: result.waiting }] as const]
        : [],
    ),
  );
  if (waiting.size > 0) restore.waiting = new WaitingTasks(waiting, answers);
  return restore;
}

/** What the task runs of stored run `id` wait for (none unless it paused). */
export async function storedPending(store: Store, id: string): Promise<CrewPending[]> {
  return pendingOfRecords(await store.list('crew_task_results', id));
}

/** What the task runs of a stored run wait for, from its `crew_task_results` records. */
export function pendingOfRecords(rows: readonly StoredRecord[]): CrewPending[] {
  return rows.flatMap((row) => {
    const result = readTaskResult(row.value);
    return result.status === 'paused' && result.waiting !== undefined
      ? [pendingOf(result.nodeId, result.waiting)]
      : [];
  });
}

/**
 * What `crew.replay(executionId, { fromTask })` restores: the completed results of the tasks before
 * `fromTask` in the crew's order (a loop: in its first iteration), which the new run writes first, in
 * the source's commit order; everything from it on runs again.
 */
export async function replayRestore(
  crew: ResumableCrew,
  executionId: string,
  fromTask: Task | string,
  store: Store | undefined = crew.store,
): Promise<RunRestore> {
  const ids = crew.tasks.map((t) => crew.nodeIdOf(t) as string);
  const from = typeof fromTask === 'string' ? ids.indexOf(fromTask) : crew.tasks.indexOf(fromTask);
  if (from < 0) {
    const named = typeof fromTask === 'string' ? fromTask : (fromTask.name ?? 'an unnamed task');
    throw new InvalidOptionError(`Crew "${crew.name}" replay`, 'fromTask', `one of ${ids.join(', ')}`, named);
  }
  const before = new Set(ids.slice(0, from));
  const keeps = (nodeId: string) =>
    before.has(nodeId) || (nodeId === `${baseNodeId(nodeId)}#1` && before.has(baseNodeId(nodeId)));
  const stored = await storedResults(crew, executionId, 'replay', store);
  const kept = stored.filter((r) => r.status === 'completed' && keeps(r.nodeId));
  const results = byNodeId(kept);
  return { results, reached: new Set(results.keys()), kept, replayOf: executionId };
}

/**
 * Claims stored run `executionId` of `crew` for `owner` before it is resumed: `run_not_found` when
 * the store holds no run of this crew under the id, `run_locked` while another owner runs it. A paused
 * run needs `answers` that fit what it waits for (`answer_required`, `invalid_option`); answers to a
 * run that is not paused are refused (`not_paused`). Of two answers at once, one claims the run (by
 * compare-and-set on its head); the other gets `run_locked` while the winner runs, and `not_paused`
 * once it moved on. Resolves with the inputs the run was started with (undefined for a run stored
 * before they were kept).
 */
export async function claimCrewRun(
  crew: ResumableCrew,
  owner: RunOwner,
  clock: Clock,
  answers?: HumanAnswers,
): Promise<{ inputs: Record<string, unknown> | undefined }> {
  const what = `Crew "${crew.name}" resume`;
  const notPaused = (status: string) => new NotPausedError(crew.name, owner.id, status, 'crew');
  const outcome = await claimStoredRun({
    owner,
    clock,
    what,
    async decide(head): Promise<ClaimDecision> {
      if (head.kind !== 'crew') {
        throw new RunNotFoundError(what, owner.id, `it is a run of ${head.kind} "${head.name}"`);
      }
      if (head.status !== 'paused') {
        if (answers !== undefined) throw notPaused(head.status);
        return 'claim';
      }
      await checkAnswersOrLostRace(crew.name, owner, head, answers, notPaused);
      return 'claim';
    },
    ...(answers === undefined
      ? {}
      : { lostRace: (head: RunHead) => notPaused(`${head.status}: another answer was taken first`) }),
  });
  if (outcome === undefined) throw new RunNotFoundError(what, owner.id);
  await checkForkWritten(owner, outcome.head);
  return { inputs: storedInputs(outcome.head) };
}

/**
 * Checks `answers` against what the paused run `head` waits for. The waits are read after the head:
 * when they no longer fit, another answer may have moved the run on in between — then the head is read
 * again, and a run that moved on gets `not_paused`, as a lost claim does, not `invalid_option`.
 */
async function checkAnswersOrLostRace(
  crew: string,
  owner: RunOwner,
  head: RunHead,
  answers: HumanAnswers | undefined,
  notPaused: (status: string) => Error,
): Promise<void> {
  try {
    checkAnswers(crew, owner.id, await storedPending(owner.store, owner.id), answers);
  } catch (error) {
    const now = await owner.store.readRun(owner.id);
    if (now === undefined || now.version === head.version) throw error;
    throw notPaused(`${now.status}: another answer was taken first`);
  }
}

/**
 * Refuses to go on with a fork whose kept results were never written (its process stopped between
 * its claim and its first commit): it would run as a fresh run. Read once the run is the claimer's;
 * a fork that keeps nothing (forked at a first checkpoint that failed) goes on as it is.
 */
async function checkForkWritten(owner: RunOwner, head: RunHead): Promise<void> {
  const { forkedFrom } = headFacts(head);
  if (forkedFrom === undefined) return;
  if ((await owner.store.list('crew_task_results', owner.id)).length > 0) return;
  const source = await owner.store.list('crew_task_results', forkedFrom.runId);
  const upTo = source.map((row) => readTaskResult(row.value));
  const at = upTo.findIndex((r) => r.nodeId === forkedFrom.checkpoint);
  if (!upTo.slice(0, at + 1).some((r) => r.status === 'completed')) return;
  await owner.releaseQuietly('failed');
  throw unfinishedFork('crew_task_results', owner.id, forkedFrom);
}

/** The inputs a run's head keeps, decoded; undefined when it kept none. */
export function storedInputs(head: RunHead): Record<string, unknown> | undefined {
  const data = head.data as { inputs?: JsonValue } | null;
  if (data?.inputs === undefined) return undefined;
  return decodeRunValue(data.inputs) as Record<string, unknown>;
}
