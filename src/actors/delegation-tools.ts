import { z } from 'zod';
import type { Tool, ToolContext } from '../types.js';
import type { ConsultOutcome, ConsultRequest } from './consult.js';
import { nestedResume } from './conversation.js';
import { CallWaits } from './pause.js';
import { ToolRefusal } from './tool-refusal.js';

/** The names of the two tools an agent with `allowDelegation` is granted. */
export const DELEGATE_WORK = 'delegate_work';
export const ASK_QUESTION = 'ask_question';

/** Where an agent's delegation tools send their requests, and the bounds they keep. */
export interface DelegationScope {
  /** The roles of the crew's agents, in the crew's order. */
  roles: readonly string[];
  /** Hand-overs allowed from the task's agent down a chain (`maxDelegationDepth`). */
  maxDepth: number;
  /** Sends `request` to its coworker and resolves with the reply; rejects only when `signal` aborts. */
  ask(request: ConsultRequest, signal: AbortSignal): Promise<ConsultOutcome>;
}

/** Where in a run an agent delegates from: the task run, and the chain of roles that led to it. */
export interface DelegationSeat {
  nodeId: string;
  attempt: number;
  /** The roles from the task's agent to the agent holding these tools, which is last. */
  chain: readonly string[];
}

const delegateInput = z.object({
  coworker: z.string().describe('The role of the coworker to hand the work to'),
  task: z.string().describe('The work to do, said in full'),
  context: z.string().default('').describe('Everything the coworker needs to know: they know nothing yet'),
});

const askInput = z.object({
  coworker: z.string().describe('The role of the coworker to ask'),
  question: z.string().describe('The question, said in full'),
  context: z.string().default('').describe('Everything the coworker needs to know: they know nothing yet'),
});

/**
 * `delegate_work` and `ask_question` for the last agent of `seat.chain`, over the scope's other
 * agents; none when there is no other agent (as CrewAI grants no delegation tools to an agent alone
 * in its crew). A call is a message to the coworker's agent actor, whose reply is the observation.
 * Refused with an observation the model can act on: an unknown coworker (`unknown_coworker`, naming
 * the roles), one already in the chain (`delegation_loop`), a hand-over deeper than the scope allows
 * (`delegation_depth`).
 */
export function delegationTools(scope: DelegationScope, seat: DelegationSeat): Tool[] {
  const self = seat.chain[seat.chain.length - 1] ?? '';
  const coworkers = scope.roles.filter((role) => role !== self);
  if (coworkers.length === 0) return [];
  const listed = coworkers.join(', ');
  const share =
    'they know nothing about it, so share absolutely everything you know; do not reference things, explain them.';
  const delegate: Tool<z.infer<typeof delegateInput>> = {
    name: DELEGATE_WORK,
    description: `Delegate a specific task to one of the following coworkers: ${listed}. Give the coworker, the task, and ALL the context needed: ${share}`,
    parameters: delegateInput as z.ZodType<z.infer<typeof delegateInput>>,
    execute: (args, context) =>
      handOver(scope, seat, 'delegate', args.coworker, args.task, args.context, context),
  };
  const ask: Tool<z.infer<typeof askInput>> = {
    name: ASK_QUESTION,
    description: `Ask a specific question to one of the following coworkers: ${listed}. Give the coworker, the question, and ALL the context needed: ${share}`,
    parameters: askInput as z.ZodType<z.infer<typeof askInput>>,
    execute: (args, context) =>
      handOver(scope, seat, 'ask', args.coworker, args.question, args.context, context),
  };
  return [delegate as Tool, ask as Tool];
}

/** One delegation or question: checked against the bounds, sent, and its reply returned as text. */
async function handOver(
  scope: DelegationScope,
  seat: DelegationSeat,
  kind: 'delegate' | 'ask',
  coworker: string,
  task: string,
  shared: string,
  context: ToolContext,
): Promise<string> {
  const to = coworkerRole(scope.roles, coworker);
  const from = seat.chain[seat.chain.length - 1] ?? '';
  if (to === undefined) {
    const roles = scope.roles.filter((role) => role !== from).join(', ') || 'none';
    throw new ToolRefusal(
      'unknown_coworker',
      `there is no coworker "${coworker}"; the coworkers are: ${roles}`,
    );
  }
  if (seat.chain.includes(to)) {
    const chain = [...seat.chain, to].join(' → ');
    throw new ToolRefusal(
      'delegation_loop',
      `"${to}" is already working on this (${chain}): do the work yourself with what you know`,
    );
  }
  if (seat.chain.length > scope.maxDepth) {
    throw new ToolRefusal(
      'delegation_depth',
      `this work was already handed over ${seat.chain.length - 1} time(s), the most this crew allows is ${scope.maxDepth}: do the work yourself`,
    );
  }
  const request: ConsultRequest = {
    kind,
    nodeId: seat.nodeId,
    attempt: seat.attempt,
    from,
    to,
    task,
    context: shared,
    chain: seat.chain,
    callId: context.callId ?? `${seat.nodeId}.${seat.attempt}`,
  };
  if (context.idempotencyKey !== undefined) request.idempotencyKey = context.idempotencyKey;
  const resume = nestedResume(context);
  if (resume !== undefined) request.resume = resume;
  const outcome = await scope.ask(request, context.signal);
  if (outcome.ok) return outcome.text;
  if (outcome.pause !== undefined) throw new CallWaits(outcome.pause.waiting, outcome.pause);
  throw new Error(`${to} could not answer: ${outcome.error.message}`);
}

/** The role a model named: exactly, else ignoring case, surrounding space and quotes (as CrewAI does). */
function coworkerRole(roles: readonly string[], named: string): string | undefined {
  if (roles.includes(named)) return named;
  const plain = (text: string) =>
    text
      .trim()
      .replace(/^["']|["']$/g, '')
      .trim()
      .toLowerCase();
  const wanted = plain(named);
  return roles.find((role) => plain(role) === wanted);
}
