import type { ApprovalAnswer, ModelMessage, TaskOutput, ToolCall, WaitingFor } from '../types.js';

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
 * What a task run waits for: a tool call to approve (where its conversation stands), or its output to
 * review. It is kept with the run's records, and the run goes on with it once answered
 * (`crew.resume(id, { approvals | reviews })`).
 */
export type TaskWait =
  | { kind: 'approval'; pause: ConversationPause }
  | { kind: 'review'; output: TaskOutput };

/**
 * Thrown inside an attempt by what makes it wait for a human (a tool call that needs approval, an
 * output that needs review) and caught where the attempt ends: the attempt ends waiting, never failed.
 */
export class HumanWait extends Error {
  constructor(readonly wait: TaskWait) {
    super(
      wait.kind === 'approval'
        ? `Agent "${wait.pause.waiting.agent}" called tool "${wait.pause.waiting.tool}", which waits for approval (call ${wait.pause.waiting.callId})`
        : `The output of task "${wait.output.name}" waits for a human's review`,
    );
    this.name = 'HumanWait';
  }
}

/** What a task run that waits tells of it (its `node.waiting` event's `waitingFor`). */
export function waitingForTask(wait: TaskWait): WaitingFor {
  if (wait.kind === 'review') return { kind: 'review', output: wait.output };
  const { tool, args, callId, agent } = wait.pause.waiting;
  return { kind: 'approval', tool, args, callId, agent };
}

/**
 * Thrown inside a conversation by the call that waits (or by a delegation whose coworker waits); the
 * conversation turns it into {@link HumanWait} with its own state around it.
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

/** The pause a wait carries, when it is a conversation's. */
export function pauseOf(error: unknown): ConversationPause | undefined {
  return error instanceof HumanWait && error.wait.kind === 'approval' ? error.wait.pause : undefined;
}
