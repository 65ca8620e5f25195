import {
  type ConversationHooks,
  converse,
  type Speaker,
  type TaskPrompt,
} from '../../actors/conversation.js';
import { InvalidOptionError } from '../../errors.js';
import { isModel } from '../../models/call.js';
import { ProviderModel } from '../../models/providers.js';
import { createResultsTool } from '../../models/results-tool.js';
import type { Llm, Tool, ToolSource } from '../../types.js';
import { optionalInteger, optionalPositive, requiredText } from '../engine/validate.js';
import { grantedTools } from './granted-tools.js';
import { interpolate } from './interpolate.js';
import { AGENT_OPTIONS, checkOptionKeys } from './option-keys.js';

/** Options of an {@link Agent}. */
export interface AgentOptions {
  /** Who the agent is; also how a hierarchical manager names it. */
  role: string;
  /** What it works towards. @default '' */
  goal?: string | undefined;
  /** Where it comes from. @default '' */
  backstory?: string | undefined;
  /**
   * A policy `(prompt, context, { signal }) => text`, a {@link Model}, or a provider string
   * (`'openai:gpt-4.1-mini'`) resolved through {@link registerProvider}.
   */
  llm: Llm | string;
  /**
   * Tools its model may call, and tool sources that yield tools once opened (MCP servers from
   * `statecrew/mcp`: each is opened once per run, when a task first needs it). @default []
   */
  tools?: readonly (Tool | ToolSource)[] | undefined;
  /** Model calls allowed in one task attempt (tool rounds included). @default 10 */
  maxIter?: number | undefined;
  /** Retries after a failed attempt, for tasks that set none. @default 2 */
  maxRetries?: number | undefined;
  /**
   * Delay before the first retry, in ms; doubles per attempt, ±20% jitter, capped at 30 s; a provider's
   * retry-after wins. @default 500 (the task's, else the agent's)
   */
  retryDelayMs?: number | undefined;
  /** Time limit of one attempt, for tasks that set none. @default no limit */
  timeoutMs?: number | undefined;
  /**
   * Streams its model's text: each delta is a `model.delta` event on `events$` (a model that can
   * stream, such as `fromAiSdk`'s, is asked to); the final text is the same. @default false
   */
  stream?: boolean | undefined;
  /**
   * Model calls a minute at most, across every run: calls are spaced and wait their turn on the run's
   * clock instead of failing. (A model's own `maxRpm` — `fromAiSdk(model, { maxRpm })` — is shared by
   * every agent that uses it.) @default no limit
   */
  maxRpm?: number | undefined;
  /** The sampling temperature its model is asked for (a model without one ignores it). @default the model's */
  temperature?: number | undefined;
  /** The most tokens an answer may have, asked of its model. @default the model's */
  maxOutputTokens?: number | undefined;
  /**
   * Grants it `delegate_work` and `ask_question` over the crew's other agents: a call is a message to
   * the coworker's agent actor, which holds the conversation with its own persona, tools and model and
   * replies (bounded by the crew's `maxDelegationDepth`). @default false
   */
  allowDelegation?: boolean | undefined;
  /**
   * Lets it look up what earlier task runs of the run produced (CrewAI's agent `memory`): it is granted
   * `createResultsTool()` (unless it has a tool named `results`), and a crew it works in keeps an
   * execution memory even without the crew's `memory` option. @default false
   */
  memory?: boolean | undefined;
}

/** Each agent's persona sentences, by agent (a copy made by `withInputs` gets its own). */
const personas = new WeakMap<Agent, string>();

/** The persona sentences of `agent`, built once (an agent's fields never change). */
function personaOf(agent: Agent): string {
  let text = personas.get(agent);
  if (text === undefined) {
    const persona = [`You are ${agent.role}.`];
    if (agent.goal !== '') persona.push(`Your goal: ${agent.goal}.`);
    if (agent.backstory !== '') persona.push(`Backstory: ${agent.backstory}.`);
    text = persona.join(' ');
    personas.set(agent, text);
  }
  return text;
}

/**
 * A persona with a model and tools. Agents are definitions: a crew run uses a copy whose role, goal and
 * backstory have the run's inputs interpolated; the original is never changed.
 *
 * @example
 * const researcher = new Agent({ role: 'Researcher', goal: 'find facts', backstory: 'meticulous', llm });
 * researcher.renderPrompt('Research AI', '3 bullets');
 */
export class Agent implements Speaker {
  readonly role: string;
  readonly goal: string;
  readonly backstory: string;
  readonly llm: Llm;
  readonly tools: readonly Tool[];
  /** The tool sources among its `tools` option (MCP servers), opened by the run that needs them. */
  readonly toolSources: readonly ToolSource[];
  readonly maxIter: number;
  readonly maxRetries: number | undefined;
  /** Delay before the first retry, for tasks that set none; see {@link AgentOptions.retryDelayMs}. */
  readonly retryDelayMs: number | undefined;
  readonly timeoutMs: number | undefined;
  readonly stream: boolean;
  readonly maxRpm: number | undefined;
  readonly temperature: number | undefined;
  readonly maxOutputTokens: number | undefined;
  /** Whether it may hand work to its coworkers (`delegate_work`, `ask_question`). */
  readonly allowDelegation: boolean;
  /** Whether it reads the run's execution memory; see {@link AgentOptions.memory}. */
  readonly memory: boolean;
  /** What its rate limit is kept under (the copies `withInputs` makes share it). */
  readonly rateKey: object = {};

  constructor(options: AgentOptions) {
    const where = `Agent "${String(options.role)}"`;
    checkOptionKeys(where, options, AGENT_OPTIONS);
    requiredText('Agent', 'role', options.role);
    const llm = typeof options.llm === 'string' ? new ProviderModel(options.llm, where) : options.llm;
    if (typeof llm !== 'function' && !isModel(llm)) {
      throw new InvalidOptionError(
        where,
        'llm',
        'a policy function, a model with generate(), or a provider string like "openai:gpt-4.1-mini"',
        options.llm,
      );
    }
    optionalInteger(where, 'maxIter', options.maxIter, 1);
    optionalInteger(where, 'maxRetries', options.maxRetries, 0);
    optionalInteger(where, 'retryDelayMs', options.retryDelayMs, 0);
    optionalPositive(where, 'timeoutMs', options.timeoutMs);
    this.role = options.role;
    this.goal = options.goal ?? '';
    this.backstory = options.backstory ?? '';
    this.llm = llm;
    if (options.memory !== undefined && typeof options.memory !== 'boolean') {
      throw new InvalidOptionError(where, 'memory', 'true or false', options.memory);
    }
    this.memory = options.memory === true;
    const { tools, sources } = grantedTools(where, options.tools);
    this.toolSources = sources;
    this.tools =
      this.memory && !tools.some((t) => t.name === 'results') ? [...tools, createResultsTool()] : tools;
    this.maxIter = options.maxIter ?? 10;
    this.stream = options.stream === true;
    optionalPositive(where, 'maxRpm', options.maxRpm);
    this.maxRpm = options.maxRpm;
    const { temperature } = options;
    if (
      temperature !== undefined &&
      !(typeof temperature === 'number' && temperature >= 0 && temperature <= 2)
    ) {
      throw new InvalidOptionError(where, 'temperature', 'a number from 0 to 2', temperature);
    }
    this.temperature = temperature;
    optionalInteger(where, 'maxOutputTokens', options.maxOutputTokens, 1);
    this.maxOutputTokens = options.maxOutputTokens;
    if (options.allowDelegation !== undefined && typeof options.allowDelegation !== 'boolean') {
      throw new InvalidOptionError(where, 'allowDelegation', 'true or false', options.allowDelegation);
    }
    this.allowDelegation = options.allowDelegation === true;
    this.maxRetries = options.maxRetries;
    this.retryDelayMs = options.retryDelayMs;
    this.timeoutMs = options.timeoutMs;
  }

  /**
   * The prompt for one task: `You are <role>. Your goal: <goal>. Backstory: <backstory>.`, then
   * `Task: <description>` and `Expected output: <expectedOutput>` on lines of their own. The goal and
   * backstory sentences are left out when empty, the expected-output line when `expectedOutput` is.
   */
  renderPrompt(description: string, expectedOutput: string): string {
    const task = `${personaOf(this)}\nTask: ${description}`;
    return expectedOutput === '' ? task : `${task}\nExpected output: ${expectedOutput}`;
  }

  /**
   * A task as this agent is asked it: the whole prompt (what a policy reads, {@link renderPrompt}),
   * and for a model its parts — the persona as the system message, the task lines as the user's.
   */
  taskPrompt(description: string, expectedOutput: string): TaskPrompt {
    const task =
      expectedOutput === ''
        ? `Task: ${description}`
        : `Task: ${description}\nExpected output: ${expectedOutput}`;
    const system = personaOf(this);
    return { text: `${system}\n${task}`, system, task };
  }

  /**
   * Runs one task outside a crew: renders the prompt, asks the model (running tools it calls) and
   * returns its final text. Aborting `options.signal` aborts the signal the policy or model was given.
   */
  execute(
    description: string,
    expectedOutput: string,
    context = '',
    options: { signal?: AbortSignal } = {},
  ): Promise<string> {
    const hooks: ConversationHooks = { now: Date.now };
    const signal = options.signal ?? new AbortController().signal;
    const answer = converse(this, this.taskPrompt(description, expectedOutput), context, signal, hooks);
    if (options.signal === undefined) return answer;
    // Outside a run nothing else settles on abort: reject at once, even if the model ignores the signal.
    return new Promise<string>((resolve, reject) => {
      const abort = () => reject(signal.reason);
      if (signal.aborted) abort();
      signal.addEventListener('abort', abort, { once: true });
      answer.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
    });
  }

  /** A copy whose role, goal and backstory have `inputs` interpolated; this agent when none change. */
  withInputs(inputs: Readonly<Record<string, unknown>>): Agent {
    const role = interpolate(this.role, inputs);
    const goal = interpolate(this.goal, inputs);
    const backstory = interpolate(this.backstory, inputs);
    if (role === this.role && goal === this.goal && backstory === this.backstory) return this;
    const copy = Object.create(Agent.prototype) as Agent;
    return Object.assign(copy, this, { role, goal, backstory });
  }
}
