import { z } from 'zod';
import { describeThrown, MaxIterationsError, ModelResponseError, StatecrewError } from '../errors.js';
import { callLlm, isModel } from '../models/call.js';
import { emptyUsage, pricedUsage, usageOfCall } from '../models/usage.js';
import type {
  AttemptMemory,
  Failure,
  Llm,
  ModelMessage,
  ModelPrice,
  ModelRequest,
  ModelResponse,
  Policy,
  Tool,
  ToolCall,
  ToolCallRecord,
  ToolSpec,
  Usage,
} from '../types.js';
import { toFailure } from './failure.js';

/** What a conversation needs to know about the agent holding it. */
export interface Speaker {
  readonly role: string;
  readonly llm: Llm;
  readonly tools: readonly Tool[];
  /** Model calls allowed in one conversation. */
  readonly maxIter: number;
  /** Whether the model is asked to stream its text (each delta to `hooks.onDelta`). */
  readonly stream?: boolean;
  /** Calls a minute at most for this agent (its calls wait their turn). */
  readonly maxRpm?: number | undefined;
  /** Its model's sampling temperature, when it sets one. */
  readonly temperature?: number | undefined;
  /** Its cap on an answer's tokens, when it sets one. */
  readonly maxOutputTokens?: number | undefined;
  /** What its rate limit is kept under: shared by the copies a kickoff makes of the agent. */
  readonly rateKey?: object;
}

/** Where a conversation reports what it spent and did. */
export interface ConversationHooks {
  /** Before each model call: throws to refuse it (the run's budget is spent: `budget_exceeded`). */
  beforeCall?(): void;
  /** A piece of text a streaming model produced. Set, it asks every model call to stream. */
  onDelta?(delta: string): void;
  /** The price of a model's tokens, by its id, for calls whose model reports no cost. */
  priceOf?(modelId: string): ModelPrice | undefined;
  /** Resolves when the next model call may start (rate limits space calls rather than fail them). */
  waitTurn?(): Promise<void>;
  /** A model call ended; `failure` is set when it threw (then `usage` is zero). */
  onModelCall?(usage: Usage, durationMs: number, failure?: Failure): void;
  onToolCall?(record: ToolCallRecord): void;
  /** The run's execution memory, handed to the tools. */
  memory?: AttemptMemory;
  now(): number;
}

/**
 * A task as an agent is asked it: `text`, the whole prompt a policy reads (persona, then the task
 * lines); for a model, `system` (the persona) and `task` (the `Task:` / `Expected output:` lines).
 */
export interface TaskPrompt {
  text: string;
  system: string;
  task: string;
  /** The JSON Schema of the task's structured output, for a model's structured-output mode. */
  schema?: Record<string, unknown>;
}

/** The first message of a task conversation: the prompt, then the context when there is one. */
export function openingMessage(prompt: string, context: string): string {
  return context === '' ? prompt : `${prompt}\n\nContext:\n${context}`;
}

/**
 * Holds one conversation: asks the model, runs the tools it calls and feeds their results back, until
 * it answers with text and no tool calls, or `maxIter` model calls were made (`max_iterations`).
 */
export function converse(
  speaker: Speaker,
  prompt: TaskPrompt,
  context: string,
  signal: AbortSignal,
  hooks: ConversationHooks,
): Promise<string> {
  if (isModel(speaker.llm)) return modelConversation(speaker, prompt, context, signal, hooks);
  if (signal.aborted) return Promise.reject(signal.reason);
  const { llm } = speaker;
  const turn = hooks.waitTurn;
  if (turn !== undefined) {
    return turn().then(() => policyCall(speaker.role, llm, prompt.text, context, signal, hooks));
  }
  return policyCall(speaker.role, llm, prompt.text, context, signal, hooks);
}

/**
 * A policy's one call, reported to `hooks` like a model's: a policy reads the prompt and context only
 * and cannot call tools, so there is no request to build, and its text is checked and reported in one
 * callback (on every task's hot path).
 */
function policyCall(
  agent: string,
  policy: Policy,
  prompt: string,
  context: string,
  signal: AbortSignal,
  hooks: ConversationHooks,
): Promise<string> {
  const started = hooks.now();
  const failed = (error: unknown): never => {
    // An abort is the run's doing, not the model's: it is reported as the run's end, not as a failed call.
    if (!signal.aborted) hooks.onModelCall?.(emptyUsage(), hooks.now() - started, toFailure(error));
    throw error;
  };
  let reply: unknown;
  try {
    hooks.beforeCall?.();
  } catch (error) {
    return Promise.reject(error);
  }
  try {
    reply = policy(prompt, context, { signal });
  } catch (error) {
    return Promise.reject(error).catch(failed);
  }
  return Promise.resolve(reply).then((text) => {
    if (typeof text !== 'string') failed(new ModelResponseError(agent, text));
    hooks.onModelCall?.(usageOfCall(undefined), hooks.now() - started);
    return text as string;
  }, failed);
}

/** A conversation with a {@link Model}: tool calls run and fed back until it answers with text. */
async function modelConversation(
  speaker: Speaker,
  prompt: TaskPrompt,
  context: string,
  signal: AbortSignal,
  hooks: ConversationHooks,
): Promise<string> {
  // The persona is the system message; the conversation opens with the task and its context.
  const messages: ModelMessage[] = [{ role: 'user', content: openingMessage(prompt.task, context) }];
  const tools = speaker.tools.map(toSpec);
  const { system, text } = prompt;
  for (let call = 0; call < speaker.maxIter; call += 1) {
    signal.throwIfAborted();
    const request: ModelRequest = {
      agent: speaker.role,
      system,
      prompt: text,
      context,
      messages: [...messages],
      tools,
      signal,
    };
    if (hooks.onDelta !== undefined) request.onDelta = hooks.onDelta;
    if (speaker.temperature !== undefined) request.temperature = speaker.temperature;
    if (speaker.maxOutputTokens !== undefined) request.maxOutputTokens = speaker.maxOutputTokens;
    if (prompt.schema !== undefined) request.schema = prompt.schema;
    if (hooks.waitTurn !== undefined) await hooks.waitTurn();
    const response = await reportedCall(speaker.llm, request, hooks);
    const toolCalls = response.toolCalls ?? [];
    if (toolCalls.length === 0) return response.text;
    messages.push({ role: 'assistant', content: response.text, toolCalls });
    for (const toolCall of toolCalls) {
      const record = await runTool(speaker.tools, toolCall, signal, hooks.memory);
      hooks.onToolCall?.(record);
      messages.push({
        role: 'tool',
        toolCallId: toolCall.id,
        name: toolCall.name,
        content: record.error === undefined ? (record.result ?? '') : `Error: ${record.error}`,
      });
    }
  }
  throw new MaxIterationsError(speaker.role, speaker.maxIter);
}

/** One model call, reported to `hooks` whether it answered or threw (but not when it was aborted). */
function reportedCall(llm: Llm, request: ModelRequest, hooks: ConversationHooks): Promise<ModelResponse> {
  try {
    hooks.beforeCall?.();
  } catch (error) {
    return Promise.reject(error);
  }
  const started = hooks.now();
  return callLlm(llm, request).then(
    (response) => {
      const id = isModel(llm) ? llm.id : undefined;
      const price = id === undefined ? undefined : hooks.priceOf?.(id);
      hooks.onModelCall?.(pricedUsage(usageOfCall(response.usage), price), hooks.now() - started);
      return response;
    },
    (error: unknown) => {
      // An abort is the run's doing, not the model's: it is reported as the run's end, not as a failed call.
      if (!request.signal.aborted) hooks.onModelCall?.(emptyUsage(), hooks.now() - started, toFailure(error));
      throw error;
    },
  );
}

async function runTool(
  tools: readonly Tool[],
  call: ToolCall,
  signal: AbortSignal,
  memory: AttemptMemory | undefined,
): Promise<ToolCallRecord> {
  const tool = tools.find((t) => t.name === call.name);
  if (tool === undefined) {
    const known = tools.map((t) => t.name).join(', ') || 'none';
    return { tool: call.name, args: call.args, error: `unknown tool "${call.name}" (known: ${known})` };
  }
  const parsed = tool.parameters
    ? tool.parameters.safeParse(call.args)
    : { success: true as const, data: call.args };
  if (!parsed.success) {
    return { tool: call.name, args: call.args, error: `invalid arguments: ${z.prettifyError(parsed.error)}` };
  }
  try {
    const result: unknown = await tool.execute(
      parsed.data,
      memory === undefined ? { signal } : { signal, memory },
    );
    return {
      tool: call.name,
      args: call.args,
      result: typeof result === 'string' ? result : JSON.stringify(result),
    };
  } catch (error) {
    signal.throwIfAborted();
    // A tool that says the work cannot succeed (a non-retryable StatecrewError) fails the attempt;
    // anything else it throws is an observation the model can react to.
    if (error instanceof StatecrewError && !error.retryable) throw error;
    return {
      tool: call.name,
      args: call.args,
      error: describeThrown(error),
    };
  }
}

function toSpec(tool: Tool): ToolSpec {
  const parameters = tool.parameters ? z.toJSONSchema(tool.parameters) : { type: 'object', properties: {} };
  return {
    name: tool.name,
    description: tool.description,
    parameters: parameters as Record<string, unknown>,
  };
}
