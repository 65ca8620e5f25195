import { InvalidOptionError } from '../errors.js';
import type { NodeFailure } from '../machines/lifecycle.js';
import type {
  DelegationReplied,
  Failure,
  Tool,
  ToolCallRecord,
  ToolProgress,
  ToolSource,
  Usage,
} from '../types.js';
import type { DelegationAsked } from './consult.js';
import type { Speaker } from './conversation.js';
import { CarriedFailure } from './failure.js';
import { type ConversationPause, type ConversationResume, HumanWait } from './pause.js';
import type { ToolSessions } from './tool-sessions.js';

/**
 * One attempt's conversation as plain data — what a worker elsewhere needs to hold it: the agent and
 * the tools by their names in the worker's registry, the rendered prompt, the context, the output's
 * JSON Schema and the deadline. Nothing in it is a function, so it crosses a queue as it is.
 */
export interface ConversationJob {
  executionId: string;
  nodeId: string;
  attempt: number;
  /** The agent, by its name in a worker's registry (its role). */
  agent: string;
  /** The tools granted to this run (the agent's and the task's), by name. */
  tools: string[];
  /**
   * The MCP servers (tool sources) granted to this run, by name, each with the subset of its tools
   * (its own names) when the grant names one: the worker calls them through its own connections.
   */
  sources?: { name: string; tools?: string[] }[];
  /** The persona: the model's system message. */
  system: string;
  /** The task lines (and any feedback on the previous attempt). */
  task: string;
  /** The whole prompt, as a policy reads it. */
  text: string;
  context: string;
  /** The JSON Schema the answer must follow, when the task has one. */
  schema?: Record<string, unknown>;
  /** Whether the model's text is streamed back as it comes. */
  stream?: boolean;
  /** When the attempt runs out of time, in epoch ms (its task's `timeoutMs`). */
  deadline?: number;
  /**
   * Set when the agent may delegate: the crew's roles and the depth bound. The worker grants
   * `delegate_work` and `ask_question` and holds each coworker's conversation with its registry's agent.
   */
  delegation?: { roles: string[]; maxDepth: number };
  /** What the conversation's call ids start with (the task run's node id and attempt). */
  callScope?: string;
  /** The task run's idempotency key, which each tool call's key derives from. */
  keyScope?: string;
  /** Where a conversation that paused for approvals goes on from, with the answers (plain data). */
  resume?: ConversationResume;
}

/** What a conversation reports while it runs, as plain data. */
export type ConversationProgress =
  | {
      type: 'model.call';
      usage: Usage;
      durationMs: number;
      /** The model's id (for the run's price table), when it has one. */
      modelId?: string;
      failure?: Failure;
      /** A coworker's role, when a delegated conversation made the call. */
      agent?: string;
    }
  | { type: 'tool.call'; record: ToolCallRecord }
  /** A running tool call's progress (`agent`: a coworker's call, in a delegation). */
  | { type: 'tool.progress'; tool: string; callId: string; progress: ToolProgress; agent?: string }
  /** A delegation asked (`delegation`) or answered (`delegation.replied`) inside the conversation. */
  | { type: 'delegation'; event: DelegationAsked }
  | { type: 'delegation.replied'; event: DelegationReplied }
  | { type: 'model.delta'; delta: string };

/** How a conversation ended, as plain data: the final text, or the failure, and who held it. */
export type ConversationOutcome =
  | { ok: true; text: string; worker?: string }
  /** `pause`: it stopped to wait for a tool call's approval (not a failure): where it stood. */
  | { ok: false; failure: NodeFailure; pause?: ConversationPause; worker?: string };

/**
 * Where attempts' conversations run when not in the run's own process: a queue of workers. The run
 * keeps everything else of an attempt (its time limit, output schema and guardrails).
 */
export interface ConversationExecutor {
  /**
   * Holds one conversation; resolves with its outcome (failures as `{ ok: false }`) and rejects only
   * when `signal` aborts. `report` hears its model calls, tool calls and streamed text as they happen.
   */
  converse(
    job: ConversationJob,
    signal: AbortSignal,
    report: (progress: ConversationProgress) => void,
  ): Promise<ConversationOutcome>;
}

/** The agents and tools a worker can hold conversations with, by name (an agent's name is its role). */
export interface AgentRegistry {
  agents: readonly Speaker[] | Readonly<Record<string, Speaker>>;
  tools?: readonly Tool[] | Readonly<Record<string, Tool>> | undefined;
  /** MCP servers (`mcpServer(...)` of `statecrew/mcp`) the jobs may name, by their names. */
  mcps?: readonly ToolSource[] | Readonly<Record<string, ToolSource>> | undefined;
}

/** A registry's lookup tables: agents by role (or key), tools and MCP servers by name (or key). */
export interface ResolvedRegistry {
  agents: ReadonlyMap<string, Speaker>;
  tools: ReadonlyMap<string, Tool>;
  sources: ReadonlyMap<string, ToolSource>;
  /** Where the servers' connections are held (a worker's, until it closes); unset: per conversation. */
  sessions?: ToolSessions;
}

/** A registry as lookup tables. Two agents with one role, or two tools with one name, are refused. */
export function resolveRegistry(registry: AgentRegistry): ResolvedRegistry {
  if (typeof registry.agents !== 'object' || registry.agents === null) {
    throw new InvalidOptionError(
      'registry',
      'agents',
      'a list of agents, or a record by name',
      registry.agents,
    );
  }
  const agents = new Map<string, Speaker>();
  const list = Array.isArray(registry.agents)
    ? (registry.agents as readonly Speaker[]).map((a) => [a.role, a] as const)
    : Object.entries(registry.agents as Readonly<Record<string, Speaker>>);
  for (const [name, agent] of list) {
    if (agents.has(name)) {
      throw new InvalidOptionError(
        'registry',
        'agents',
        'agents with distinct roles (names)',
        `two named "${name}"`,
      );
    }
    agents.set(name, agent);
  }
  const tools = byName<Tool>(registry.tools, 'tools');
  const sources = byName<ToolSource>(registry.mcps, 'mcps');
  for (const source of sources.values()) {
    if (source?.kind !== 'tool-source')
      throw new InvalidOptionError('registry', 'mcps', 'MCP servers (mcpServer(...))', source);
  }
  return { agents, tools, sources };
}

/** A list (by each item's name) or a record (by key) as a map; two of one name are refused. */
function byName<T extends { name: string }>(
  items: readonly T[] | Readonly<Record<string, T>> | undefined,
  option: 'tools' | 'mcps',
): Map<string, T> {
  const map = new Map<string, T>();
  const named = Array.isArray(items)
    ? (items as readonly T[]).map((t) => [t?.name, t] as const)
    : Object.entries((items ?? {}) as Readonly<Record<string, T>>);
  for (const [name, item] of named) {
    if (map.has(name)) {
      const what = option === 'tools' ? 'tools' : 'MCP servers';
      throw new InvalidOptionError('registry', option, `${what} with distinct names`, `two named "${name}"`);
    }
    map.set(name, item);
  }
  return map;
}

/**
 * What a conversation that did not end well throws again in the run's process: the wait it stopped
 * for (a tool call's approval), else its carried failure (its code and retry flag kept).
 */
export function failureOf(outcome: Extract<ConversationOutcome, { ok: false }>): Error {
  if (outcome.pause !== undefined) return new HumanWait({ kind: 'approval', pause: outcome.pause });
  return new CarriedFailure(outcome.failure);
}
