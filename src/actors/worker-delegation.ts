import { UnknownAgentError } from '../errors.js';
import { isModel } from '../models/call.js';
import {
  askedOf,
  CONSULT_EXPECTED_OUTPUT,
  type ConsultOutcome,
  type ConsultRequest,
  consultTask,
  repliedOf,
} from './consult.js';
import { type ConversationHooks, converse, type Speaker, type TaskPrompt } from './conversation.js';
import type { ConversationJob, ConversationProgress, ResolvedRegistry } from './conversation-job.js';
import { type DelegationScope, delegationTools } from './delegation-tools.js';
import { toFailure } from './failure.js';
import { pauseOf } from './pause.js';

/**
 * The job's agent as it speaks on a worker when it may delegate: with `delegate_work` and
 * `ask_question` over the crew's roles. The worker holds each coworker's conversation itself, with its
 * registry's agent of that role (its persona, tools and model), and reports it in the job's progress
 * (`delegation`, the coworker's model and tool calls under its role, `delegation.replied`). Held here
 * rather than queued as a job of its own: a worker waiting on a job it queued would hold its slot, and
 * a fleet whose slots all wait on delegations could never run them.
 */
export function workerDelegation(
  job: ConversationJob,
  delegation: NonNullable<ConversationJob['delegation']>,
  speaker: Speaker,
  registry: ResolvedRegistry,
  report: (progress: ConversationProgress) => void,
): Speaker {
  const scope: DelegationScope = {
    roles: delegation.roles,
    maxDepth: delegation.maxDepth,
    ask: (request, signal) => holdCoworker(request, scope, registry, report, signal),
  };
  const seat = { nodeId: job.nodeId, attempt: job.attempt, chain: [job.agent] };
  const tools = [...speaker.tools, ...delegationTools(scope, seat)];
  return Object.create(speaker, { tools: { value: tools } }) as Speaker;
}

/** One coworker's conversation on this worker, reported before and after. */
async function holdCoworker(
  request: ConsultRequest,
  scope: DelegationScope,
  registry: ResolvedRegistry,
  report: (progress: ConversationProgress) => void,
  signal: AbortSignal,
): Promise<ConsultOutcome> {
  if (request.resume === undefined) report({ type: 'delegation', event: askedOf(request) });
  const started = Date.now();
  const outcome = await coworkerOutcome(request, scope, registry, report, signal);
  if (outcome.ok || outcome.pause === undefined)
    report({ type: 'delegation.replied', event: repliedOf(request, outcome, Date.now() - started) });
  return outcome;
}

async function coworkerOutcome(
  request: ConsultRequest,
  scope: DelegationScope,
  registry: ResolvedRegistry,
  report: (progress: ConversationProgress) => void,
  signal: AbortSignal,
): Promise<ConsultOutcome> {
  try {
    const agent = registry.agents.get(request.to);
    if (agent === undefined) throw new UnknownAgentError(request.to, [...registry.agents.keys()]);
    let speaker = agent;
    if (agent.allowDelegation === true) {
      const chain = [...request.chain, agent.role];
      const tools = [
        ...agent.tools,
        ...delegationTools(scope, { nodeId: request.nodeId, attempt: request.attempt, chain }),
      ];
      speaker = Object.create(agent, { tools: { value: tools } }) as Speaker;
    }
    const talk = talkOf(request, isModel(agent.llm) ? agent.llm.id : undefined, report);
    const text = await converse(speaker, coworkerPrompt(agent, request), request.context, signal, talk);
    return { ok: true, text };
  } catch (error) {
    signal.throwIfAborted();
    const pause = pauseOf(error);
    return pause === undefined
      ? { ok: false, error: toFailure(error) }
      : { ok: false, error: toFailure(error), pause };
  }
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

/** Where the coworker's conversation reports: the job's progress, under the coworker's role. */
function talkOf(
  request: ConsultRequest,
  modelId: string | undefined,
  report: (progress: ConversationProgress) => void,
): ConversationHooks {
  const { to } = request;
  const talk: ConversationHooks = {
    now: Date.now,
    onModelCall: (usage, durationMs, failure) =>
      report({
        type: 'model.call',
        usage,
        durationMs,
        agent: to,
        ...(modelId === undefined ? {} : { modelId }),
        ...(failure === undefined ? {} : { failure }),
      }),
    onToolCall: (record) => report({ type: 'tool.call', record: { ...record, agent: to } }),
    callScope: `${request.callId}/${to}`,
  };
  if (request.resume !== undefined) talk.resume = request.resume;
  return talk;
}
