import { z } from 'zod';
import { isModel } from '../../models/call.js';
import { flag, integer, positive, text } from '../../options/fields.js';
import { option, unchecked } from '../../options/option.js';
import type { Llm } from '../../types.js';
import { toolsOption } from './granted-tools.js';

/** The options of `new Agent(...)`: each option's type, check, default and docs, once. */
export const agentOptionsSchema = z.strictObject({
  /** Who the agent is; also how a hierarchical manager names it. */
  role: text(),
  /** What it works towards. @default '' */
  goal: unchecked<string>().default(''),
  /** Where it comes from. @default '' */
  backstory: unchecked<string>().default(''),
  /**
   * A policy `(prompt, context, { signal }) => text`, a {@link Model}, or a provider string
   * (`'openai:gpt-4.1-mini'`) resolved through {@link registerProvider}.
   */
  llm: option<Llm | string>(
    'a policy function, a model with generate(), or a provider string like "openai:gpt-4.1-mini"',
    (llm) => typeof llm === 'string' || typeof llm === 'function' || isModel(llm as Llm),
  ),
  /**
   * Tools its model may call, and tool sources that yield tools once opened (MCP servers from
   * `statecrew/mcp`: each is opened once per run, when a task first needs it). @default []
   */
  tools: toolsOption().default([]),
  /** Model calls allowed in one task attempt (tool rounds included). @default 10 */
  maxIter: integer(1).default(10),
  /** Retries after a failed attempt, for tasks that set none. @default 2 */
  maxRetries: integer(0).optional(),
  /**
   * Delay before the first retry, in ms; doubles per attempt, ±20% jitter, capped at 30 s; a provider's
   * retry-after wins. @default 500 (the task's, else the agent's)
   */
  retryDelayMs: integer(0).optional(),
  /** Time limit of one attempt, for tasks that set none. @default no limit */
  timeoutMs: positive().optional(),
  /**
   * Streams its model's text: each delta is a `model.delta` event on `events$` (a model that can
   * stream, such as `fromAiSdk`'s, is asked to); the final text is the same. @default false
   */
  stream: unchecked<boolean>().optional(),
  /**
   * Model calls a minute at most, across every run: calls are spaced and wait their turn on the run's
   * clock instead of failing. (A model's own `maxRpm` — `fromAiSdk(model, { maxRpm })` — is shared by
   * every agent that uses it.) @default no limit
   */
  maxRpm: positive().optional(),
  /** The sampling temperature its model is asked for (a model without one ignores it). @default the model's */
  temperature: option<number>(
    'a number from 0 to 2',
    (t) => typeof t === 'number' && t >= 0 && t <= 2,
  ).optional(),
  /** The most tokens an answer may have, asked of its model. @default the model's */
  maxOutputTokens: integer(1).optional(),
  /**
   * Grants it `delegate_work` and `ask_question` over the crew's other agents: a call is a message to
   * the coworker's agent actor, which holds the conversation with its own persona, tools and model and
   * replies (bounded by the crew's `maxDelegationDepth`). An agent with no other agent in its crew is
   * granted neither tool. @default false
   */
  allowDelegation: flag().default(false),
  /**
   * Lets it look up what earlier task runs of the run produced (CrewAI's agent `memory`): it is granted
   * `createResultsTool()` (unless it has a tool named `results`), and a crew it works in keeps an
   * execution memory even without the crew's `memory` option. @default false
   */
  memory: flag().default(false),
});

/** Options of an {@link Agent}. */
export interface AgentOptions extends z.input<typeof agentOptionsSchema> {}

/** An agent's options as checked, with their defaults. */
export type AgentSettings = z.output<typeof agentOptionsSchema>;
