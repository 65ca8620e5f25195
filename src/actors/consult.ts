import type { Delegation, DelegationReplied, Failure } from '../types.js';
import type { ConversationPause, ConversationResume } from './pause.js';

/**
 * One agent asking a coworker, as plain data: which task run it happened in, who asks whom (roles),
 * what is asked (`delegate`: a piece of work; `ask`: a question) with the context shared, and the
 * chain of roles the request came through (the task's agent first), which bounds delegation.
 */
export interface ConsultRequest {
  kind: 'delegate' | 'ask';
  nodeId: string;
  attempt: number;
  from: string;
  to: string;
  /** The work or the question. */
  task: string;
  context: string;
  /** The roles from the task's agent to `from`, in order: `to` is refused if it is among them. */
  chain: readonly string[];
  /** The id of the delegating tool call: the coworker's call ids start with it. */
  callId: string;
  /** The delegating tool call's idempotency key: the coworker's tool calls' keys start with it. */
  idempotencyKey?: string;
  /** Goes on with the coworker's conversation where it paused for an approval. */
  resume?: ConversationResume;
}

/** A coworker's reply: its final text, or why its conversation failed (or paused: `pause`). */
export type ConsultOutcome =
  | { ok: true; text: string }
  | { ok: false; error: Failure; pause?: ConversationPause };

/** A delegation asked, as its `delegation` event carries it (without the event's own fields). */
export type DelegationAsked = Extract<Delegation, { kind: 'delegate' | 'ask' }> & {
  depth: number;
  context: string;
};

/** The `delegation` event's fields for `request`. */
export function askedOf(request: ConsultRequest): DelegationAsked {
  const { kind, from, to, task, nodeId, context } = request;
  return { kind, from, to, role: to, task, nodeId, depth: request.chain.length, context };
}

/** The `delegation.replied` event's fields for `request` answered with `outcome` after `durationMs`. */
export function repliedOf(
  request: ConsultRequest,
  outcome: ConsultOutcome,
  durationMs: number,
): DelegationReplied {
  const { kind, from, to, nodeId } = request;
  const replied: DelegationReplied = { kind, nodeId, from, to, durationMs };
  if (outcome.ok) replied.reply = outcome.text;
  else replied.error = outcome.error.message;
  return replied;
}

/** What a coworker is asked to produce, as CrewAI words it. */
export const CONSULT_EXPECTED_OUTPUT =
  'Your best answer to your coworker asking you this, accounting for the context shared.';

/** The task lines a coworker's conversation opens with. */
export function consultTask(request: ConsultRequest): string {
  return request.kind === 'ask' ? `Answer this question from ${request.from}: ${request.task}` : request.task;
}
