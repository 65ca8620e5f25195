import { InvalidOptionError, UnknownAgentError, UnknownMcpServerError, UnknownToolError } from '../errors.js';
import { isModel } from '../models/call.js';
import type { ToolSource } from '../types.js';
import { converse, type Speaker, type TaskPrompt } from './conversation.js';
import type {
  AgentRegistry,
  ConversationExecutor,
  ConversationJob,
  ConversationOutcome,
  ConversationProgress,
  ResolvedRegistry,
} from './conversation-job.js';
import { resolveRegistry } from './conversation-job.js';
import { toFailure } from './failure.js';
import { progressHooks } from './job-progress.js';
import { pauseOf } from './pause.js';
import { workerDelegation } from './worker-delegation.js';

/**
 * Holds a conversation job with the registry's agent and tools (what a worker does with each job):
 * resolves with its outcome — an unknown agent or tool is `unknown_agent` / `unknown_tool`, anything
 * the conversation throws a failure that keeps its code and retry flag — and rejects only when
 * `signal` aborts. A job past its deadline is aborted.
 */
export async function holdConversation(
  job: ConversationJob,
  registry: ResolvedRegistry,
  signal: AbortSignal,
  report: (progress: ConversationProgress) => void,
): Promise<ConversationOutcome> {
  try {
    let speaker = speakerFor(job, registry);
    const prompt: TaskPrompt = { text: job.text, system: job.system, task: job.task };
    if (job.schema !== undefined) prompt.schema = job.schema;
    const hooks = progressHooks(report, isModel(speaker.llm) ? speaker.llm.id : undefined);
    if (job.stream === true) hooks.onDelta = (delta) => report({ type: 'model.delta', delta });
    if (job.delegation !== undefined)
      speaker = workerDelegation(job, job.delegation, speaker, registry, report);
    if (job.callScope !== undefined) hooks.callScope = job.callScope;
    if (job.keyScope !== undefined) hooks.keyScope = job.keyScope;
    if (job.resume !== undefined) hooks.resume = job.resume;
    if (registry.sessions !== undefined) hooks.toolSessions = registry.sessions;
    const text = await withDeadline(job.deadline, signal, (s) =>
      converse(speaker, prompt, job.context, s, hooks),
    );
    return { ok: true, text };
  } catch (error) {
    signal.throwIfAborted();
    const pause = pauseOf(error);
    if (pause === undefined) return { ok: false, failure: toFailure(error) };
    return { ok: false, failure: { message: (error as Error).message, retryable: false }, pause };
  }
}

/** The job's agent, speaking with the job's tools and MCP servers. */
function speakerFor(job: ConversationJob, registry: ResolvedRegistry): Speaker {
  const agent = registry.agents.get(job.agent);
  if (agent === undefined) throw new UnknownAgentError(job.agent, [...registry.agents.keys()]);
  const own = new Map(agent.tools.map((t) => [t.name, t]));
  const tools = job.tools.map((name) => {
    const tool = registry.tools.get(name) ?? own.get(name);
    if (tool === undefined) throw new UnknownToolError(name, job.agent);
    return tool;
  });
  const toolSources = sourcesFor(job, agent, registry);
  return Object.create(agent, { tools: { value: tools }, toolSources: { value: toolSources } }) as Speaker;
}

/**
 * The job's MCP servers: the registry's of each name (else the agent's own), narrowed to the subset
 * the job names. A server the worker does not hold is `unknown_mcp_server`.
 */
function sourcesFor(job: ConversationJob, agent: Speaker, registry: ResolvedRegistry): ToolSource[] {
  const own = new Map((agent.toolSources ?? []).map((s) => [s.name, s]));
  return (job.sources ?? []).map(({ name, tools }) => {
    const source = registry.sources.get(name) ?? own.get(name);
    if (source === undefined) {
      const known = new Set([...registry.sources.keys(), ...own.keys()]);
      throw new UnknownMcpServerError(name, job.agent, [...known]);
    }
    if (tools === undefined) return source;
    if (source.tools === undefined)
      throw new InvalidOptionError(`MCP server "${name}"`, 'tools', 'a source that grants subsets', tools);
    return source.tools(tools);
  });
}

/** Runs `work` with a signal that also aborts at `deadline` (epoch ms). */
async function withDeadline<T>(
  deadline: number | undefined,
  signal: AbortSignal,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  if (deadline === undefined) return work(signal);
  const controller = new AbortController();
  const abort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', abort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new Error(`The attempt ran past its deadline`)),
    Math.max(0, deadline - Date.now()),
  );
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', abort);
  }
}

/**
 * An executor that holds conversations in this process with a registry's agents, as a worker would:
 * what the queue executor is checked against, without the queue.
 *
 * @example
 * const crew = new Crew({ tasks, executor: localExecutor({ agents: [researcher, writer] }) });
 */
export function localExecutor(registry: AgentRegistry, worker = 'local'): ConversationExecutor {
  const resolved = resolveRegistry(registry);
  return {
    async converse(job, signal, report) {
      const outcome = await holdConversation(
        JSON.parse(JSON.stringify(job)) as ConversationJob,
        resolved,
        signal,
        report,
      );
      return { ...outcome, worker };
    },
  };
}
