import { UnknownAgentError } from '../errors.js';
import { isModel } from '../models/call.js';
import { askedOf, type ConsultOutcome, type ConsultRequest, repliedOf } from './consult.js';
import type { Speaker } from './conversation.js';
import type { ConversationJob, ConversationProgress, ResolvedRegistry } from './conversation-job.js';
import { holdCoworker } from './coworker.js';
import { type DelegationScope, delegationTools } from './delegation-tools.js';
import { toFailure } from './failure.js';
import { progressHooks } from './job-progress.js';

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
    ask: (request, signal) => reportedCoworker(request, scope, registry, report, signal),
  };
  const seat = { nodeId: job.nodeId, attempt: job.attempt, chain: [job.agent] };
  const tools = [...speaker.tools, ...delegationTools(scope, seat)];
  return Object.create(speaker, { tools: { value: tools } }) as Speaker;
}

/** One coworker's conversation on this worker, reported before and after. */
async function reportedCoworker(
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

/** The coworker's conversation with the registry's agent of its role; an unknown role is `unknown_agent`. */
function coworkerOutcome(
  request: ConsultRequest,
  scope: DelegationScope,
  registry: ResolvedRegistry,
  report: (progress: ConversationProgress) => void,
  signal: AbortSignal,
): Promise<ConsultOutcome> {
  const agent = registry.agents.get(request.to);
  if (agent === undefined) {
    const error = new UnknownAgentError(request.to, [...registry.agents.keys()]);
    return Promise.resolve({ ok: false, error: toFailure(error) });
  }
  const modelId = isModel(agent.llm) ? agent.llm.id : undefined;
  const hooks = progressHooks(report, modelId, request.to);
  // The coworker's own MCP servers go through the worker's connections too.
  if (registry.sessions !== undefined) hooks.toolSessions = registry.sessions;
  return holdCoworker(agent, request, scope, signal, hooks);
}
