import type { Interrupt } from '@ag-ui/core';
import { z } from 'zod';
import { leafWaits, PATH_SEPARATOR, type PendingStep } from '../machines/flow/waits.js';
import type { CrewPending } from '../types.js';
import { jsonSchemaOf } from './describe.js';
import { approvalSchema, humanAnswerSchema, reviewSchema } from './schemas.js';

/**
 * What a paused run asks for, one item per question: a flow's waiting step (as its store keeps it,
 * or as its `node.waiting` and `flow.paused` events tell it: no payload), or a crew's tool call to
 * approve or output to review.
 */
export type AskedItem = WithoutPayload<PendingStep> | CrewPending;

/** `T` without its `payload`, each member of a union on its own. */
type WithoutPayload<T> = T extends unknown ? Omit<T, 'payload'> : never;

/** One interrupt, with what answers it: the item asked and, for a crew step's item, that step. */
export interface AskedInterrupt {
  interrupt: Interrupt;
  /** The question: a flow step (human, event) or a crew's item. */
  item: Exclude<AskedItem, { kind: 'crew' | 'flow' }>;
  /** The flow step whose crew asks `item`, when a crew inside a flow step asks it. */
  step?: string;
}

/** How a resume entry's payload answers a human step: a route of its own and what the human said. */
function humanPayloadSchema(routes: readonly string[]) {
  const [first, ...rest] = routes;
  const route = first === undefined ? z.string().min(1) : z.enum([first, ...rest]);
  return humanAnswerSchema.omit({ step: true }).extend({ route });
}

/** The JSON Schema of what a resume entry's `payload` must be to answer `item`. */
export function payloadSchemaOf(item: AskedInterrupt['item']): z.ZodType {
  switch (item.kind) {
    case 'human':
      return humanPayloadSchema(item.routes);
    case 'event':
      return z.unknown().describe(`The payload of event "${item.event}"`);
    case 'approval':
      return approvalSchema;
    case 'review':
      return reviewSchema;
  }
}

/** What the person answering is asked, in a sentence. */
function messageOf(item: AskedInterrupt['item']): string {
  switch (item.kind) {
    case 'human':
      return item.prompt;
    case 'event':
      return `Send event "${item.event}" (its payload as the answer)`;
    case 'approval':
      return `Approve ${item.agent}'s call of tool "${item.tool}" with ${JSON.stringify(item.args ?? {})}?`;
    case 'review':
      return `Accept the output of task "${item.output.name || item.nodeId}"?\n${item.output.raw}`;
  }
}

/** Why the run stopped, short: the words statecrew's interrupts always used. */
function reasonOf(item: AskedInterrupt['item']): string {
  switch (item.kind) {
    case 'human':
      return 'waits for a human';
    case 'event':
      return `waits for event ${item.event}`;
    case 'approval':
      return `tool ${item.tool} waits for approval`;
    case 'review':
      return `output of ${item.nodeId} waits for review`;
  }
}

/** An interrupt's id: a flow step's `<thread>:<step>`, a crew's call id or node id (in a step: prefixed). */
function idOf(threadId: string, item: AskedInterrupt['item'], step: string | undefined): string {
  if (item.kind === 'human' || item.kind === 'event') return `${threadId}:${item.step}`;
  const own = item.kind === 'approval' ? item.callId : item.nodeId;
  return step === undefined ? own : `${threadId}:${step}:${own}`;
}

function askedInterrupt(threadId: string, item: AskedInterrupt['item'], step?: string): AskedInterrupt {
  const timeoutAt = 'timeoutAt' in item ? item.timeoutAt : undefined;
  const interrupt: Interrupt = {
    id: idOf(threadId, item, step),
    reason: reasonOf(item),
    message: messageOf(item),
    responseSchema: jsonSchemaOf(payloadSchemaOf(item)),
    ...(timeoutAt === undefined ? {} : { expiresAt: new Date(timeoutAt).toISOString() }),
    metadata: { ...item, ...(step === undefined ? {} : { step }) },
  };
  return { interrupt, item, ...(step === undefined ? {} : { step }) };
}

/**
 * A child flow's innermost waits, each named by its path from the run (`review › approve`): the step
 * a resume through the run names to reach it.
 */
function childItems(item: Extract<AskedItem, { kind: 'flow' }>): AskedItem[] {
  return leafWaits([{ ...item, payload: undefined }]).map((leaf) => ({
    ...leaf.wait,
    step: leaf.path.join(PATH_SEPARATOR),
  }));
}

/**
 * The AG-UI interrupts of what run `threadId` asks: one per waiting step, and one per tool call or
 * output a crew (or a flow step's crew) waits on; a child flow's waits by their path. Each says what it asks (`message`), the answer it
 * takes (`responseSchema`, a resume entry's `payload`) and until when (`expiresAt`).
 */
export function interruptsOf(threadId: string, asked: readonly AskedItem[]): AskedInterrupt[] {
  return asked.flatMap((item) =>
    item.kind === 'crew'
      ? item.pending.map((p) => askedInterrupt(threadId, p, item.step))
      : item.kind === 'flow'
        ? interruptsOf(threadId, childItems(item))
        : [askedInterrupt(threadId, item)],
  );
}
