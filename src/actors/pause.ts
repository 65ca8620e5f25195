import { StatecrewError } from '../errors.js';
import type { ApprovalAnswer, CrewPending, ModelMessage, TaskOutput, ToolCall } from '../types.js';

/** A tool call that waits for a human's approval: its id in the run, the tool, its arguments, who called it. */
export interface WaitingCall {
  callId: string;
  tool: string;
  args: unknown;
  /** The role of the agent whose model called it (a coworker's, inside a delegation). */
  agent: string;
}

/**
 * Where a conversation paused, as plain data (it is stored, and crosses a queue): what was said so
 * far, the tool calls of the last model turn still to run (the first is the one waiting, or the
 * delegation whose coworker's conversation waits: `nested`), the model calls made and the repeated-call
 * counts. A conversation resumed from it goes on exactly there.
 */
export interface ConversationPause {
  messages: ModelMessage[];
  remaining: ToolCall[];
  /**
   * The index of `remaining[0]` in its model turn, so that the calls after it keep their call ids
   * (`<scope>.<model call>.<index>`) when the conversation goes on. @default 0
   */
  first?: number;
  calls: number;
  counts: [string, number][];
  waiting: WaitingCall;
  /** The coworker's own pause, when the first remaining call is a delegation that waits. */
  nested?: ConversationPause;
}

/** How a paused conversation goes on: where it stood, and the answers to waiting calls by `callId`. */
export interface ConversationResume {
  from: ConversationPause;
  approvals: Readonly<Record<string, ApprovalAnswer>>;
}

/**
 * A task run stopped to wait for a human: a tool call to approve (`details.pause` says where its
 * conversation stands) or an output to review. Not a failure: the run pauses, is stored, and goes on
 * with `crew.resume(id, { approvals | reviews })`. Never retried.
 */
export class AwaitingHumanError extends StatecrewError<'awaiting_human'> {
  constructor(what: string, details: Record<string, unknown>) {
    super('awaiting_human', what, { details });
  }

  /** A conversation that paused before running `pause.waiting`. */
  static approval(pause: ConversationPause): AwaitingHumanError {
    const { tool, agent, callId } = pause.waiting;
    return new AwaitingHumanError(
      `Agent "${agent}" called tool "${tool}", which waits for approval (call ${callId})`,
      { kind: 'approval', pause },
    );
  }

  /** A crew run (kicked off in a flow step) that paused: what it waits for, under its execution id. */
  static crew(crew: string, executionId: string, pending: readonly CrewPending[]): AwaitingHumanError {
    return new AwaitingHumanError(`Crew "${crew}" run "${executionId}" waits for a human`, {
      kind: 'crew',
      crew,
      executionId,
      pending: [...pending],
    });
  }

  /** A task run whose checked output waits for a human's review (`humanInput` on its task). */
  static review(output: TaskOutput): AwaitingHumanError {
    return new AwaitingHumanError(`The output of task "${output.name}" waits for a human's review`, {
      kind: 'review',
      output,
    });
  }
}

/**
 * Thrown inside a conversation by the call that waits (or by a delegation whose coworker waits); the
 * conversation turns it into {@link AwaitingHumanError} with its own state around it.
 */
export class CallWaits extends Error {
  constructor(
    readonly waiting: WaitingCall,
    readonly nested?: ConversationPause,
  ) {
    super(`Call ${waiting.callId} waits for approval`);
    this.name = 'CallWaits';
  }
}

/** The pause an awaiting error carries, when it is a conversation's. */
export function pauseOf(error: unknown): ConversationPause | undefined {
  if (!(error instanceof AwaitingHumanError)) return undefined;
  const details = error.details as { kind?: string; pause?: ConversationPause };
  return details.kind === 'approval' ? details.pause : undefined;
}
