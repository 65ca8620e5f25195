import { InvalidOptionError } from '../errors.js';
import type { ExecutionDocumentData } from '../runtime/crew/execution-document.js';
import type { ApprovalAnswer, CrewPending, ReviewAnswer } from '../types.js';
import { shellWord } from './output.js';

/** The answer flags of `statecrew resume`: a flow step's route, and a crew's approvals and reviews. */
export interface AnswerOptions {
  route?: string | undefined;
  feedback?: string | undefined;
  step?: string | undefined;
  /** `--approve <callId>` (repeatable): run the tool calls. */
  approve?: string[] | undefined;
  /** `--deny <callId>` (repeatable): refuse the tool calls, telling the model `--feedback`. */
  deny?: string[] | undefined;
  /** `--review <nodeId> [approve]` (repeatable): node ids, each followed by `approve` to accept it. */
  review?: string[] | undefined;
}

/** Answers to a crew's tool calls and reviews, as `crew.resume` and `flow.resume` take them. */
export interface CrewAnswers {
  approvals: Record<string, ApprovalAnswer>;
  reviews: Record<string, ReviewAnswer>;
}

const WHERE = 'statecrew resume';

/** `--review` words: each node id, and whether `approve` follows it. */
function reviewsOf(words: readonly string[]): { nodeId: string; approve: boolean }[] {
  const reviews: { nodeId: string; approve: boolean }[] = [];
  for (const word of words) {
    const last = reviews.at(-1);
    if (word === 'approve' && last !== undefined && !last.approve) last.approve = true;
    else reviews.push({ nodeId: word, approve: false });
  }
  return reviews;
}

/**
 * The crew answers the flags give — `--approve <callId>`, `--deny <callId>` and `--review <nodeId>
 * approve`, the denials and sent-back reviews told `--feedback` — or undefined when none is given. A
 * review sent back without `--feedback`, or a call both approved and denied, is `invalid_option`.
 */
export function crewAnswersOf(options: AnswerOptions): CrewAnswers | undefined {
  const { approve = [], deny = [], review = [], feedback } = options;
  if (approve.length + deny.length + review.length === 0) return undefined;
  const approvals: Record<string, ApprovalAnswer> = {};
  for (const callId of approve) approvals[callId] = { approve: true };
  for (const callId of deny) {
    if (approvals[callId]?.approve === true) {
      throw new InvalidOptionError(WHERE, '--deny', 'a call not also approved', callId, {
        message: `${WHERE}: call ${callId} is given both --approve and --deny: answer it once`,
      });
    }
    approvals[callId] = feedback === undefined ? { approve: false } : { approve: false, feedback };
  }
  const reviews: Record<string, ReviewAnswer> = {};
  for (const { nodeId, approve: accepted } of reviewsOf(review)) {
    if (accepted) reviews[nodeId] = { approve: true };
    else if (feedback !== undefined) reviews[nodeId] = { approve: false, feedback };
    else {
      throw new InvalidOptionError(WHERE, '--review', '<nodeId> approve, or --feedback <text>', nodeId, {
        message: `${WHERE}: --review ${nodeId} needs "approve" after it (--review ${nodeId} approve) or --feedback <text> to send the output back`,
      });
    }
  }
  return { approvals, reviews };
}

/** The command words that start an answer: `statecrew resume <id>` and the options it needs (`--store`). */
function resumeWords(id: string, resumeArgs: readonly string[]): string {
  return ['statecrew resume', shellWord(id), ...resumeArgs.map(shellWord)].join(' ');
}

/**
 * The exact commands that answer what a paused crew run waits for, one per line: approve or deny each
 * tool call, approve or send back each output to review (`resumeArgs`: the options `statecrew resume
 * <id>` needs besides the id and the answer, such as `--store`).
 */
export function crewAnswerCommands(
  id: string,
  pending: readonly CrewPending[],
  resumeArgs: readonly string[],
  indent = '  ',
): string[] {
  const resume = resumeWords(id, resumeArgs);
  return pending.flatMap((p) => {
    if (p.kind === 'approval') {
      const call = shellWord(p.callId);
      return [
        `${indent}${p.nodeId} waits for call ${p.callId} (${p.agent} → ${p.tool})`,
        `${indent}  approve it: ${resume} --approve ${call}`,
        `${indent}  deny it:    ${resume} --deny ${call} --feedback <why>`,
      ];
    }
    const node = shellWord(p.nodeId);
    return [
      `${indent}${p.nodeId} waits for a review of its output`,
      `${indent}  approve it:   ${resume} --review ${node} approve`,
      `${indent}  send it back: ${resume} --review ${node} --feedback <what to change>`,
    ];
  });
}

/** What the paused task runs of a stored crew run wait for, as a result's `pending` lists it. */
export function pendingOf(doc: ExecutionDocumentData): CrewPending[] {
  return doc.results.flatMap((r): CrewPending[] => {
    const w = r.status === 'paused' ? r.waiting : undefined;
    if (w?.kind === 'approval') return [{ ...w, nodeId: r.nodeId }];
    if (w?.kind === 'review') return [{ ...w, nodeId: r.nodeId }];
    return [];
  });
}
