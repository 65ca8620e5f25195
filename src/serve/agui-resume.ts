import { z } from 'zod';
import { InvalidRequestError, NotPausedError, RunNotFoundError } from '../errors.js';
import { storedPending } from '../runtime/crew/crew-resume.js';
import type { CrewAnswerInput } from '../runtime/flow/crew-steps.js';
import { loadSnapshot } from '../runtime/flow/flow-store.js';
import type { RunHead, Store } from '../stores/store.js';
import { type AskedInterrupt, type AskedItem, interruptsOf, payloadSchemaOf } from './agui-interrupts.js';
import { type AnswerDesk, type ResumeAnswer, resumeRun, signalRun } from './run-answers.js';

const ROUTE = 'POST /runs/:id/agui';

/** One answer to an interrupt, as AG-UI's `RunAgentInput.resume` carries it. */
export const resumeEntrySchema = z.object({
  interruptId: z.string().min(1).describe('The id of the interrupt answered'),
  status: z
    .enum(['resolved', 'cancelled'])
    .describe('resolved: payload answers it; cancelled: no answer now (it waits on, or times out)'),
  payload: z.unknown().optional().describe("The answer, as the interrupt's responseSchema says"),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** A resume entry as the body holds it. */
export type ResumeEntryInput = z.output<typeof resumeEntrySchema>;

/** An entry matched to the interrupt it answers, its payload checked. */
interface Answered {
  asked: AskedInterrupt;
  payload: unknown;
}

/** What stored run `head` waits for now: a flow's waiting steps, a crew's calls and outputs. */
async function askedNow(store: Store, head: RunHead): Promise<AskedItem[]> {
  if (head.kind === 'crew') return storedPending(store, head.id);
  return (await loadSnapshot(store, head.id))?.pending ?? [];
}

/** Entry `index` matched to what waits, its payload checked against the interrupt's schema. */
function answered(id: string, waiting: AskedInterrupt[], entry: ResumeEntryInput, index: number): Answered {
  const at = `body.resume.${index}`;
  const asked = waiting.find((w) => w.interrupt.id === entry.interruptId);
  if (asked === undefined) {
    const ids = waiting.map((w) => `"${w.interrupt.id}"`).join(', ') || 'nothing';
    const message = `is not an interrupt run "${id}" waits for (it waits for ${ids})`;
    throw new InvalidRequestError(ROUTE, [{ path: `${at}.interruptId`, message }]);
  }
  const parsed = payloadSchemaOf(asked.item).safeParse(entry.payload);
  if (!parsed.success) {
    throw new InvalidRequestError(
      ROUTE,
      parsed.error.issues.map((issue) => ({
        path: [`${at}.payload`, ...issue.path.map(String)].join('.'),
        message: issue.message,
      })),
    );
  }
  return { asked, payload: parsed.data };
}

/** Crew answers from entries that answer crew items (tool calls and outputs). */
function crewAnswerOf(entries: readonly Answered[]): CrewAnswerInput {
  const approvals: Record<string, unknown> = {};
  const reviews: Record<string, unknown> = {};
  for (const { asked, payload } of entries) {
    if (asked.item.kind === 'approval') approvals[asked.item.callId] = payload;
    if (asked.item.kind === 'review') reviews[asked.item.nodeId] = payload;
  }
  const steps = new Set(entries.map((e) => e.asked.step));
  const [step] = steps;
  return {
    ...(Object.keys(approvals).length === 0 ? {} : { approvals }),
    ...(Object.keys(reviews).length === 0 ? {} : { reviews }),
    ...(steps.size === 1 && step !== undefined ? { step } : {}),
  } as CrewAnswerInput;
}

/**
 * Goes on with run `id` as the answers say, as `POST /runs/:id/resume` or `/signal` would: a human
 * step's `{ route, feedback? }`, an event's payload, or any number of a crew's approvals and reviews.
 */
async function goOn(desk: AnswerDesk, id: string, entries: readonly Answered[]): Promise<void> {
  const [first] = entries;
  if (first === undefined) {
    await resumeRun(desk, id, undefined);
    return;
  }
  const crewItems = entries.every((e) => e.asked.item.kind === 'approval' || e.asked.item.kind === 'review');
  if (crewItems) {
    await resumeRun(desk, id, crewAnswerOf(entries));
    return;
  }
  if (entries.length > 1) {
    const message =
      'answers one human step, one event, or the calls and outputs crews wait for at a time: mark the others "cancelled" and answer them once the run pauses again';
    throw new InvalidRequestError(ROUTE, [{ path: 'body.resume', message }]);
  }
  const { item } = first.asked;
  if (item.kind === 'event') {
    await signalRun(desk, id, item.event, first.payload);
    return;
  }
  const step = item.kind === 'human' ? { step: item.step } : {};
  const answer = { ...(first.payload as object), ...step } as ResumeAnswer;
  await resumeRun(desk, id, answer);
}

/**
 * `POST /runs/:id/agui` with `resume` entries: answers the interrupts run `id` ended its last AG-UI
 * run with, and goes on with it here (resolved once the run was claimed and started). The entries
 * marked `cancelled` answer nothing; none resolved goes on as `{}` does (the deadlines that passed
 * time out). Refusals are those of the REST answers: `not_paused` for a run not paused (another
 * answer was taken first), `run_locked`, `deadline_passed`, `no_waiter`; an id that names no
 * interrupt, or a payload that does not fit its `responseSchema`, is `invalid_request`.
 */
export async function answerInterrupts(
  desk: AnswerDesk,
  id: string,
  entries: readonly ResumeEntryInput[],
): Promise<void> {
  const head = await desk.store.readRun(id);
  if (head === undefined) throw new RunNotFoundError(ROUTE, id);
  if (head.status !== 'paused') throw new NotPausedError(head.name, id, head.status, head.kind);
  const asked = await askedNow(desk.store, head);
  // Read after what it waits for: an answer taken meanwhile (here or in another process) moved the
  // run on, and what it waited for is gone with it — that is a lost race, not a bad interrupt id.
  const now = await desk.store.readRun(id);
  if (now?.status !== 'paused') {
    const status = `${now?.status ?? 'gone'}: another answer was taken first`;
    throw new NotPausedError(head.name, id, status, head.kind);
  }
  const waiting = interruptsOf(id, asked);
  const resolved = entries.flatMap((entry, index) =>
    entry.status === 'resolved' ? [answered(id, waiting, entry, index)] : [],
  );
  await goOn(desk, id, resolved);
}
