import { CONSULT_EXPECTED_OUTPUT, type ConsultOutcome, type ConsultRequest, consultTask } from './consult.js';
import { type ConversationHooks, converse, type Speaker, type TaskPrompt } from './conversation.js';
import { type DelegationScope, delegationTools } from './delegation-tools.js';
import { toFailure } from './failure.js';
import { pauseOf } from './pause.js';

/**
 * Holds one coworker's conversation for a delegation, wherever it runs (a run's agent actor, a
 * worker): `agent` speaks with its own persona, tools and model — and its own delegation tools over
 * `scope` when it may delegate — asked the request as CrewAI asks a coworker; `talk` hears its calls
 * (its call ids start with the delegating call's, and it goes on from `request.resume`). Resolves with
 * the reply, or the failure (a pause for approval carried as `pause`); rejects only when `signal` aborts.
 */
export async function holdCoworker(
  agent: Speaker,
  request: ConsultRequest,
  scope: DelegationScope,
  signal: AbortSignal,
  talk: ConversationHooks,
): Promise<ConsultOutcome> {
  const hooks: ConversationHooks = { ...talk, callScope: `${request.callId}/${request.to}` };
  // The coworker's tool calls are keyed under the delegating call, never under the task run itself.
  delete hooks.keyScope;
  if (request.idempotencyKey !== undefined) hooks.keyScope = `${request.idempotencyKey}/${request.to}`;
  if (request.resume !== undefined) hooks.resume = request.resume;
  try {
    const speaker = coworkerSpeaker(agent, request, scope);
    const text = await converse(speaker, coworkerPrompt(agent, request), request.context, signal, hooks);
    return { ok: true, text };
  } catch (error) {
    signal.throwIfAborted();
    const pause = pauseOf(error);
    if (pause === undefined) return { ok: false, error: toFailure(error) };
    // Not a failure: the coworker's conversation waits for an approval, and the caller's with it.
    return { ok: false, error: { message: (error as Error).message, retryable: false }, pause };
  }
}

/** The coworker as it speaks in a delegation: its own tools, and its own delegation tools if it may. */
function coworkerSpeaker(agent: Speaker, request: ConsultRequest, scope: DelegationScope): Speaker {
  if (agent.allowDelegation !== true) return agent;
  const seat = { nodeId: request.nodeId, attempt: request.attempt, chain: [...request.chain, agent.role] };
  const tools = [...agent.tools, ...delegationTools(scope, seat)];
  return Object.create(agent, { tools: { value: tools } }) as Speaker;
}

/** What the coworker is asked: through its own `taskPrompt` when it is an `Agent`, else its role alone. */
function coworkerPrompt(agent: Speaker, request: ConsultRequest): TaskPrompt {
  const task = consultTask(request);
  const own = (agent as Partial<{ taskPrompt(d: string, e: string): TaskPrompt }>).taskPrompt;
  if (typeof own === 'function') return own.call(agent, task, CONSULT_EXPECTED_OUTPUT);
  const system = `You are ${agent.role}.`;
  const lines = `Task: ${task}\nExpected output: ${CONSULT_EXPECTED_OUTPUT}`;
  return { system, task: lines, text: `${system}\n${lines}` };
}
