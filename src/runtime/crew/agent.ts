import {
  type ConversationHooks,
  converse,
  type Speaker,
  type TaskPrompt,
} from '../../actors/conversation.js';
import { ProviderModel } from '../../models/providers.js';
import { createResultsTool } from '../../models/results-tool.js';
import { parseOptions } from '../../options/parse.js';
import type { Llm, Tool, ToolSource } from '../../types.js';
import { type AgentOptions, type AgentSettings, agentOptionsSchema } from './agent-options.js';
import { grantedTools } from './granted-tools.js';
import { interpolate } from './interpolate.js';

export type { AgentOptions } from './agent-options.js';

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
  /** Its options as checked, with their defaults: what an option without a field of its own is read from. */
  readonly settings: AgentSettings;
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
    const where = `Agent "${String((options as { role?: unknown } | undefined)?.role)}"`;
    const settings = parseOptions(
      agentOptionsSchema,
      (option) => (option === 'role' ? 'Agent' : where),
      options,
    );
    this.settings = settings;
    this.role = settings.role;
    this.goal = settings.goal;
    this.backstory = settings.backstory;
    this.llm = typeof settings.llm === 'string' ? new ProviderModel(settings.llm, where) : settings.llm;
    this.memory = settings.memory;
    const { tools, sources } = grantedTools(settings.tools);
    this.toolSources = sources;
    this.tools =
      this.memory && !tools.some((t) => t.name === 'results') ? [...tools, createResultsTool()] : tools;
    this.maxIter = settings.maxIter;
    this.stream = settings.stream === true;
    this.maxRpm = settings.maxRpm;
    this.temperature = settings.temperature;
    this.maxOutputTokens = settings.maxOutputTokens;
    this.allowDelegation = settings.allowDelegation;
    this.maxRetries = settings.maxRetries;
    this.retryDelayMs = settings.retryDelayMs;
    this.timeoutMs = settings.timeoutMs;
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
