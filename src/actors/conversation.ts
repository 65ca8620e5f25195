import { z } from 'zod';
import { describeThrown, isStatecrewError, MaxIterationsError, ModelResponseError } from '../errors.js';
import { callLlm, isModel } from '../models/call.js';
import { failedCallUsage, pricedUsage, usageOfCall } from '../models/usage.js';
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
  ToolContext,
  ToolProgress,
  ToolSource,
  ToolSpec,
  Usage,
} from '../types.js';
import { toFailure } from './failure.js';
import { CallWaits, type ConversationPause, type ConversationResume, HumanWait } from './pause.js';
import { ToolRefusal } from './tool-refusal.js';
import { ToolSessions } from './tool-sessions.js';

/** What a conversation needs to know about the agent holding it. */
export interface Speaker {
  readonly role: string;
  readonly llm: Llm;
  readonly tools: readonly Tool[];
  /** Sources of more tools (MCP servers), opened through `hooks.toolSessions` before the first model call. */
  readonly toolSources?: readonly ToolSource[];
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
  /** Whether it is granted `delegate_work` and `ask_question` over its crew's other agents. */
  readonly allowDelegation?: boolean;
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
  /** A running tool call reported how far it got; set, every tool call gets `onProgress`. */
  onToolProgress?(tool: string, callId: string, progress: ToolProgress): void;
  /** The run's execution memory, handed to the tools. */
  memory?: AttemptMemory;
  /**
   * What this conversation's call ids start with (`callId` of its tool calls is
   * `<scope>.<model call>.<index>`): a task run's node id and attempt. @default 'call'
   */
  callScope?: string;
  /**
   * The idempotency key of the node run the conversation works for: each tool call's key is
   * `<keyScope>:<tool>#<n>` (the n-th call of that tool in the conversation). Unset: calls get none.
   */
  keyScope?: string;
  /** Goes on from where a paused conversation stopped, with answers to its waiting calls. */
  resume?: ConversationResume;
  /**
   * The run's open tool sources, which the speaker's `toolSources` are opened through (once per run);
   * without it, a conversation opens its own and closes them when it ends.
   */
  toolSessions?: ToolSessions;
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
    return turn().then(() =>
      policyCall(speaker.role, llm, prompt.text, context, signal, hooks, asText, rethrow),
    );
  }
  return policyCall(speaker.role, llm, prompt.text, context, signal, hooks, asText, rethrow);
}

/** The text of a policy's answer, as a conversation ends with it. */
const asText = (text: string): string => text;

/** Passes a failure on as the conversation's rejection. */
const rethrow = (error: unknown): never => {
  throw error;
};

/**
 * A policy's one call, reported to `hooks` like a model's: a policy reads the prompt and context only
 * and cannot call tools, so there is no request to build, and its text is checked, reported and handed
 * to `done` in one callback (on every task's hot path). A failure goes to `fail` (a failed call is
 * reported first, unless the signal aborted; a refused one — `beforeCall` threw — is not a call).
 */
export function policyCall<T>(
  agent: string,
  policy: Policy,
  prompt: string,
  context: string,
  signal: AbortSignal,
  hooks: ConversationHooks,
  done: (text: string) => T,
  fail: (error: unknown) => T,
): Promise<T> {
  const started = hooks.now();
  const failed = (error: unknown): T => {
    // An abort is the run's doing, not the model's: it is reported as the run's end, not as a failed call.
    if (!signal.aborted) hooks.onModelCall?.(failedCallUsage(), hooks.now() - started, toFailure(error));
    return fail(error);
  };
  let reply: unknown;
  try {
    hooks.beforeCall?.();
  } catch (error) {
    return Promise.reject(error).then(undefined, fail);
  }
  try {
    reply = policy(prompt, context, { signal });
  } catch (error) {
    return Promise.reject(error).then(undefined, failed);
  }
  return Promise.resolve(reply).then((text) => {
    if (typeof text !== 'string') return failed(new ModelResponseError(agent, text));
    hooks.onModelCall?.(usageOfCall(undefined), hooks.now() - started);
    return done(text);
  }, failed);
}

/** A model conversation's state as its turns change it (what a pause keeps). */
interface Talk {
  readonly messages: ModelMessage[];
  /** Model calls made so far. */
  calls: number;
  readonly counter: CallCounter;
}

/**
 * A conversation with a {@link Model}: tool calls run and fed back until it answers with text. A call
 * that waits for approval stops it with {@link HumanWait} carrying where it stood; given
 * `hooks.resume`, it goes on from there.
 */
function modelConversation(
  speaker: Speaker,
  prompt: TaskPrompt,
  context: string,
  signal: AbortSignal,
  hooks: ConversationHooks,
): Promise<string> {
  const sources = speaker.toolSources ?? [];
  if (sources.length === 0) return toolConversation(speaker, prompt, context, signal, hooks);
  const own = hooks.toolSessions === undefined ? new ToolSessions() : undefined;
  const sessions = hooks.toolSessions ?? (own as ToolSessions);
  const held = sessions.toolsOf(sources, signal).then((opened) => {
    // A tool the speaker names itself wins over a source's tool of the same name.
    const names = new Set(speaker.tools.map((t) => t.name));
    const tools = [...speaker.tools, ...opened.filter((t) => !names.has(t.name))];
    const expanded = Object.create(speaker, { tools: { value: tools }, toolSources: { value: [] } });
    return toolConversation(expanded as Speaker, prompt, context, signal, hooks);
  });
  return own === undefined ? held : held.finally(() => own.close());
}

/** {@link modelConversation} once the speaker's tool sources are opened. */
async function toolConversation(
  speaker: Speaker,
  prompt: TaskPrompt,
  context: string,
  signal: AbortSignal,
  hooks: ConversationHooks,
): Promise<string> {
  const { resume } = hooks;
  // The persona is the system message; the conversation opens with the task and its context.
  const talk: Talk =
    resume === undefined
      ? {
          messages: [{ role: 'user', content: openingMessage(prompt.task, context) }],
          calls: 0,
          counter: new CallCounter(),
        }
      : {
          messages: [...resume.from.messages],
          calls: resume.from.calls,
          counter: new CallCounter(resume.from.counts),
        };
  if (resume !== undefined) {
    const { remaining, first = 0 } = resume.from;
    await runToolCalls(speaker, remaining, talk, signal, hooks, { resume, first });
  }
  const tools = speaker.tools.map(toSpec);
  const { system, text } = prompt;
  while (talk.calls < speaker.maxIter) {
    signal.throwIfAborted();
    const request: ModelRequest = {
      agent: speaker.role,
      system,
      prompt: text,
      context,
      messages: [...talk.messages],
      tools,
      signal,
    };
    if (hooks.onDelta !== undefined) request.onDelta = hooks.onDelta;
    if (speaker.temperature !== undefined) request.temperature = speaker.temperature;
    if (speaker.maxOutputTokens !== undefined) request.maxOutputTokens = speaker.maxOutputTokens;
    if (prompt.schema !== undefined) request.schema = prompt.schema;
    if (hooks.waitTurn !== undefined) await hooks.waitTurn();
    const response = await reportedCall(speaker.llm, request, hooks);
    talk.calls += 1;
    const toolCalls = response.toolCalls ?? [];
    if (toolCalls.length === 0) return response.text;
    talk.messages.push({ role: 'assistant', content: response.text, toolCalls });
    await runToolCalls(speaker, toolCalls, talk, signal, hooks);
  }
  throw new MaxIterationsError(speaker.role, speaker.maxIter);
}

/**
 * Runs one model turn's tool calls in order, feeding each result back. `from.resume`, when set,
 * answers the first call (the one the conversation paused on), which was call `from.first` of its
 * turn. A call that waits stops the conversation here.
 */
async function runToolCalls(
  speaker: Speaker,
  toolCalls: readonly ToolCall[],
  talk: Talk,
  signal: AbortSignal,
  hooks: ConversationHooks,
  from: { resume: ConversationResume; first: number } | undefined = undefined,
): Promise<void> {
  const first = from?.first ?? 0;
  for (let index = 0; index < toolCalls.length; index += 1) {
    const toolCall = toolCalls[index] as ToolCall;
    const resumed = index === 0 ? from?.resume : undefined;
    const callId = callIdOf(hooks, talk, first + index);
    let record: ToolCallRecord;
    try {
      // A resumed call was counted when it was first made.
      const refused = resumed === undefined ? talk.counter.refusal(toolCall) : undefined;
      const call = { callId, key: callKeyOf(hooks, talk, toolCall.name) };
      record = refused ?? (await runTool(speaker, toolCall, signal, hooks, call, resumed));
    } catch (error) {
      if (!(error instanceof CallWaits)) throw error;
      const pause: ConversationPause = {
        messages: [...talk.messages],
        remaining: toolCalls.slice(index),
        calls: talk.calls,
        counts: talk.counter.entries(),
        waiting: error.waiting,
      };
      if (first + index > 0) pause.first = first + index;
      if (error.nested !== undefined) pause.nested = error.nested;
      throw new HumanWait({ kind: 'approval', pause });
    }
    hooks.onToolCall?.(record);
    talk.messages.push({
      role: 'tool',
      toolCallId: toolCall.id,
      name: toolCall.name,
      content: record.error === undefined ? (record.result ?? '') : `Error: ${record.error}`,
    });
  }
}

/** The run-wide id of a turn's `index`-th tool call: `<scope>.<model call>.<index>`. */
function callIdOf(hooks: ConversationHooks, talk: Talk, index: number): string {
  return `${hooks.callScope ?? 'call'}.${talk.calls}.${index}`;
}

/**
 * The idempotency key of a call of tool `name`: `<scope>:<name>#<n>`, n counting this tool's calls in
 * the conversation from 1. Counted from the messages (which a pause keeps), so the same conversation
 * held again — another attempt, another owner — gives each call the key it had.
 */
function callKeyOf(hooks: ConversationHooks, talk: Talk, name: string): string | undefined {
  if (hooks.keyScope === undefined) return undefined;
  let before = 0;
  for (const message of talk.messages) if (message.role === 'tool' && message.name === name) before += 1;
  return `${hooks.keyScope}:${name}#${before + 1}`;
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
      if (!request.signal.aborted)
        hooks.onModelCall?.(failedCallUsage(), hooks.now() - started, toFailure(error));
      throw error;
    },
  );
}

/**
 * Runs one tool call: an unknown tool or invalid arguments are observations; a tool that needs
 * approval throws {@link CallWaits} unless `resumed` answers it (a refusal is an observation with the
 * human's feedback). `resumed.from.nested` goes down to a delegation whose coworker waited.
 */
async function runTool(
  speaker: Speaker,
  call: ToolCall,
  signal: AbortSignal,
  hooks: ConversationHooks,
  { callId, key }: { callId: string; key: string | undefined },
  resumed?: ConversationResume,
): Promise<ToolCallRecord> {
  const { tools } = speaker;
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
  const context: ToolContext = { signal, callId };
  if (key !== undefined) context.idempotencyKey = key;
  if (hooks.memory !== undefined) context.memory = hooks.memory;
  const { onToolProgress } = hooks;
  if (onToolProgress !== undefined) context.onProgress = progressReport(call.name, callId, onToolProgress);
  if (resumed?.from.nested !== undefined) {
    resumeOfCall.set(context, { from: resumed.from.nested, approvals: resumed.approvals });
  } else if (resumed !== undefined) {
    const answer = resumed.approvals[resumed.from.waiting.callId];
    if (answer === undefined) throw new CallWaits(resumed.from.waiting);
    if (!answer.approve) return refusedCall(call, answer.feedback);
  } else if (await needsApproval(tool, parsed.data, context)) {
    throw new CallWaits({ callId, tool: call.name, args: call.args, agent: speaker.role });
  }
  try {
    const result: unknown = await tool.execute(parsed.data, context);
    return {
      tool: call.name,
      args: call.args,
      result: typeof result === 'string' ? result : JSON.stringify(result),
    };
  } catch (error) {
    signal.throwIfAborted();
    if (error instanceof CallWaits) throw error;
    if (error instanceof ToolRefusal)
      return { tool: call.name, args: call.args, error: error.message, code: error.code };
    // A tool that says the work cannot succeed (a non-retryable StatecrewError) fails the attempt, and
    // so does a tool source that cannot be reached (a later attempt connects again); anything else it
    // throws is an observation the model can react to.
    if (isStatecrewError(error) && (!error.retryable || error.code === 'mcp_unavailable')) throw error;
    return {
      tool: call.name,
      args: call.args,
      error: describeThrown(error),
    };
  }
}

/** A call's `onProgress`: reports in plain data (what a tool gives is copied; odd values are dropped). */
function progressReport(
  tool: string,
  callId: string,
  report: NonNullable<ConversationHooks['onToolProgress']>,
): (progress: ToolProgress) => void {
  return (progress) => {
    if (typeof progress?.progress !== 'number') return;
    const copy: ToolProgress = { progress: progress.progress };
    if (typeof progress.total === 'number') copy.total = progress.total;
    if (typeof progress.message === 'string') copy.message = progress.message;
    report(tool, callId, copy);
  };
}

/** Whether this call of `tool` waits for approval: its `needsApproval`, a flag or a check of the call. */
async function needsApproval(tool: Tool, args: unknown, context: ToolContext): Promise<boolean> {
  const { needsApproval: check } = tool;
  if (check === undefined || check === false) return false;
  if (check === true) return true;
  return (await check(args, context)) === true;
}

/** A call a human refused: the model is told so, with the feedback. */
function refusedCall(call: ToolCall, feedback: string | undefined): ToolCallRecord {
  const why = feedback === undefined || feedback === '' ? '' : `: ${feedback}`;
  return {
    tool: call.name,
    args: call.args,
    error: `approval_refused: a human refused this call${why}`,
    code: 'approval_refused',
  };
}

/**
 * How a delegation tool's coworker conversation goes on, by the call's context: set only when the
 * conversation resumes on a delegation whose coworker had paused.
 */
const resumeOfCall = new WeakMap<ToolContext, ConversationResume>();

/** The resume of the coworker conversation a tool call holds, when it goes on from a pause. */
export function nestedResume(context: ToolContext): ConversationResume | undefined {
  return resumeOfCall.get(context);
}

/** Calls of the same tool with the same arguments allowed in one conversation. */
export const MAX_SAME_CALLS = 2;

/**
 * Counts a conversation's tool calls by tool and arguments: a call made {@link MAX_SAME_CALLS} times
 * already is refused (`repeated_call`) with an observation telling the model so, never run again.
 */
class CallCounter {
  readonly #counts: Map<string, number>;

  constructor(counts: readonly [string, number][] = []) {
    this.#counts = new Map(counts);
  }

  /** The counts as plain data (a pause keeps them). */
  entries(): [string, number][] {
    return [...this.#counts];
  }

  /** The refusal of `call`, when it repeats too often; else undefined (and the call is counted). */
  refusal(call: ToolCall): ToolCallRecord | undefined {
    const key = `${call.name}\u0000${canonicalJson(call.args)}`;
    const count = this.#counts.get(key) ?? 0;
    if (count >= MAX_SAME_CALLS) {
      const error =
        `repeated_call: "${call.name}" was already called ${MAX_SAME_CALLS} times with these arguments ` +
        'in this task run; use what it returned, or call it with different arguments';
      return { tool: call.name, args: call.args, error, code: 'repeated_call' };
    }
    this.#counts.set(key, count + 1);
    return undefined;
  }
}

/** JSON with object keys sorted, so that the same arguments in another key order count as the same. */
function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) =>
      item !== null && typeof item === 'object' && !Array.isArray(item)
        ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : item,
    ) ?? 'undefined'
  );
}

function toSpec(tool: Tool): ToolSpec {
  const parameters =
    tool.inputSchema ??
    (tool.parameters ? z.toJSONSchema(tool.parameters) : { type: 'object', properties: {} });
  return {
    name: tool.name,
    description: tool.description,
    parameters: parameters as Record<string, unknown>,
  };
}
