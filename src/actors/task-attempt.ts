import { type ZodType, z } from 'zod';
import { describeThrown, GuardrailError, GuardrailFailedError, TaskTimeoutError } from '../errors.js';
import type { AttemptOutcome, WorkOutcome } from '../machines/lifecycle.js';
import { isModel } from '../models/call.js';
import { pricedUsage } from '../models/usage.js';
import type {
  AttemptMemory,
  Failure,
  GuardrailContext,
  Llm,
  ModelPrice,
  Policy,
  TaskOutput,
  Tool,
  ToolCallRecord,
  ToolProgress,
  ToolSource,
  Usage,
} from '../types.js';
import {
  type ConversationHooks,
  converse,
  policyCall,
  type Speaker,
  type TaskPrompt,
} from './conversation.js';
import {
  type ConversationExecutor,
  type ConversationJob,
  type ConversationProgress,
  failureOf,
} from './conversation-job.js';
import { toFailure } from './failure.js';
import { withMarkdown } from './markdown.js';
import { type ConversationResume, HumanWait, waitingForTask } from './pause.js';
import { parseStructured } from './structured-output.js';
import { withTimeLimit } from './time-limit.js';
import type { ToolSessions } from './tool-sessions.js';

/** An agent as a task attempt needs it. */
export interface AttemptAgent extends Speaker {
  taskPrompt(description: string, expectedOutput: string): TaskPrompt;
}

/** Everything one task run needs, resolved at the time it starts. */
export interface AttemptSpec {
  nodeId: string;
  name: string;
  description: string;
  expectedOutput: string;
  /** The context text this run reads. */
  context: string;
  agent: AttemptAgent;
  outputSchema: ZodType | undefined;
  /** The task's guardrails, in order (none: an empty list or undefined). */
  guardrail: readonly ((output: TaskOutput, context: GuardrailContext) => unknown)[] | undefined;
  /** Attempts allowed in all: a rejection on the last one is `guardrail_failed`. @default 1 */
  maxAttempts?: number;
  /** Why the previous attempt's output was rejected: the agent is told. */
  feedback?: string | undefined;
  timeoutMs: number | undefined;
  /**
   * The task's own tools. When the task grants any tool or tool source, they (with `toolSources`) are
   * this run's in place of the agent's, as CrewAI runs a task with `task.tools or agent.tools`; when
   * it grants none, the agent's are.
   */
  tools?: readonly Tool[] | undefined;
  /** The task's own tool sources (MCP servers): with `tools`, in place of the agent's. */
  toolSources?: readonly ToolSource[] | undefined;
  /**
   * Tools the crew grants this run whichever tools it has — the delegation tools, and the agent's
   * execution-memory `results` tool when the task's tools replace the agent's — as CrewAI adds its
   * delegation and memory tools to a task's tools. One of the same name gives way to them.
   */
  crewTools?: readonly Tool[] | undefined;
  /**
   * On an executor elsewhere: the crew's roles and depth bound when the agent may delegate (the
   * worker grants the delegation tools). In this process the tools come in `tools` instead.
   */
  delegation?: { roles: string[]; maxDepth: number } | undefined;
  /** A human reviews the checked output: the attempt ends waiting for it (the node waits). */
  humanInput?: boolean | undefined;
  /** The prompt asks for a Markdown answer (CrewAI's instruction, after the expected output). */
  markdown?: boolean | undefined;
  /** Where this attempt's conversation goes on from (it paused for approvals), with the answers. */
  resume?: ConversationResume | undefined;
}

/** The value a completed task run hands to its lifecycle. */
export interface TaskRunValue {
  raw: string;
  structured?: unknown;
}

/** Where task attempts report model and tool calls. */
export interface AttemptHooks {
  now(): number;
  /** Before each model call: throws to refuse it (`budget_exceeded`). */
  beforeModelCall?(): void;
  /** A streaming model's piece of text (asked for when the agent or the run streams). */
  onDelta?(nodeId: string, attempt: number, delta: string): void;
  /** Every agent of the run streams (the run's `stream` option). */
  stream?: boolean;
  /** The price of a model's tokens by its id (the run's `prices`). */
  priceOf?(modelId: string): ModelPrice | undefined;
  /** Resolves when `agent`'s next model call may start (its and its model's `maxRpm`). */
  waitTurn?(agent: AttemptAgent, signal: AbortSignal): Promise<void>;
  /** A model call ended; `failure` is set when it threw; `agent` made it when not the node's agent (a coworker). */
  onModelCall(
    nodeId: string,
    attempt: number,
    usage: Usage,
    durationMs: number,
    failure?: Failure,
    agent?: string,
  ): void;
  onToolCall(nodeId: string, record: ToolCallRecord): void;
  /** A running tool call reported progress (`agent`: a coworker's call); unset, tools get no `onProgress`. */
  onToolProgress?(nodeId: string, tool: string, callId: string, progress: ToolProgress, agent?: string): void;
  /** Holds the conversations elsewhere (a queue of workers) instead of in this process. */
  executor?: ConversationExecutor;
  /** The run's id, which a remote conversation carries. */
  runId?: string;
  /** The idempotency key of task run `nodeId` (the run's own): its tool calls' keys derive from it. */
  keyOf?(nodeId: string): string;
  /** Who held a remote conversation (a worker's name). */
  onWorker?(nodeId: string, worker: string): void;
  /** The run's tool sources, each opened once when a conversation first needs it. */
  toolSessions?: ToolSessions;
  /** The run's execution memory as an attempt's tools see it (the crew keeps one). */
  memoryFor?(nodeId: string, attempt: number): AttemptMemory;
  /** A delegation asked or answered inside a conversation held elsewhere (a worker's). */
  onDelegation?(progress: Extract<ConversationProgress, { type: 'delegation' | 'delegation.replied' }>): void;
}

/**
 * One attempt of a task run (an agent run, the `work` of its lifecycle): the node's agent on its
 * task, with the time limit, structured output and guardrail applied. Failures resolve as
 * `{ ok: false }` so the lifecycle can decide on a retry; only an abort rejects.
 */
export function runTaskAttempt(
  spec: AttemptSpec,
  attemptNo: number,
  signal: AbortSignal,
  hooks: AttemptHooks,
): Promise<AttemptOutcome> {
  // Promise callbacks, not an async frame around another: every in-flight task holds this chain.
  const failed = (error: unknown): AttemptOutcome => {
    signal.throwIfAborted();
    // Not a failure: the attempt ends waiting for a human (an approval, a review).
    if (error instanceof HumanWait) {
      return {
        waiting: { waitingFor: waitingForTask(error.wait), keep: error.wait },
        finishedAt: hooks.now(),
      };
    }
    return { ok: false, error: toFailure(error), finishedAt: hooks.now() };
  };
  if (
    spec.outputSchema === undefined &&
    (spec.guardrail?.length ?? 0) === 0 &&
    spec.timeoutMs === undefined &&
    spec.humanInput !== true
  ) {
    // Nothing to check and no time limit: the conversation's text is the output.
    const done = (raw: string): WorkOutcome => ({ ok: true, output: { raw }, finishedAt: hooks.now() });
    if (isPolicyCall(spec, hooks)) return policyAttempt(spec, attemptNo, signal, hooks, done, failed);
    return conversation(spec, attemptNo, signal, hooks).then(done, failed);
  }
  const run = (attemptSignal: AbortSignal) =>
    conversation(spec, attemptNo, attemptSignal, hooks).then((raw) =>
      checked(spec, raw, attemptNo, guardrailContext(spec, attemptNo, attemptSignal, hooks)),
    );
  const { timeoutMs } = spec;
  const expired = () => new TaskTimeoutError(spec.name, timeoutMs as number);
  const work = timeoutMs === undefined ? run(signal) : withTimeLimit(signal, timeoutMs, expired, run);
  return work.then((value): WorkOutcome => ({ ok: true, output: value, finishedAt: hooks.now() }), failed);
}

/** What the task's agent is asked: its task prompt, with the Markdown instruction when the task asks for it. */
export function attemptPrompt(
  spec: Pick<AttemptSpec, 'agent' | 'description' | 'expectedOutput' | 'markdown'>,
): TaskPrompt {
  const prompt = spec.agent.taskPrompt(spec.description, spec.expectedOutput);
  return spec.markdown === true ? withMarkdown(prompt) : prompt;
}

/** What the agent is asked in this attempt: its task prompt, the last rejection's feedback, the schema. */
function askedPrompt(spec: AttemptSpec): TaskPrompt {
  let prompt = attemptPrompt(spec);
  if (spec.feedback !== undefined) {
    const note = `\nFeedback: your previous answer was rejected: ${spec.feedback}`;
    prompt = { ...prompt, text: prompt.text + note, task: prompt.task + note };
  }
  if (spec.outputSchema !== undefined) prompt = { ...prompt, schema: jsonSchemaOf(spec.outputSchema) };
  return prompt;
}

/**
 * Whether the attempt is one call of a policy in this process, with no rate limit to wait for: a
 * policy reads the prompt and context only (no tools, no memory, no tool-call keys), so nothing of a
 * conversation's set-up is needed.
 */
function isPolicyCall(spec: AttemptSpec, hooks: AttemptHooks): boolean {
  return (
    hooks.executor === undefined &&
    !isModel(spec.agent.llm) &&
    (hooks.waitTurn === undefined || !isRateLimited(spec.agent))
  );
}

/**
 * An attempt that is one policy call ({@link isPolicyCall}), its outcome made in the call's own
 * callback (`done`, or `failed` for what it threw): the hot path of every task with a policy agent,
 * one promise shorter than a conversation's, reported the same way.
 */
function policyAttempt(
  spec: AttemptSpec,
  attemptNo: number,
  signal: AbortSignal,
  hooks: AttemptHooks,
  done: (raw: string) => AttemptOutcome,
  failed: (error: unknown) => AttemptOutcome,
): Promise<AttemptOutcome> {
  let prompt: TaskPrompt;
  try {
    prompt = askedPrompt(spec);
  } catch (error) {
    return Promise.reject(error).then(undefined, failed);
  }
  if (signal.aborted) return Promise.reject(signal.reason);
  const talk: ConversationHooks = {
    now: hooks.now,
    onModelCall: (usage, durationMs, failure) =>
      hooks.onModelCall(spec.nodeId, attemptNo, usage, durationMs, failure),
  };
  if (hooks.beforeModelCall !== undefined) talk.beforeCall = hooks.beforeModelCall;
  const { agent } = spec;
  return policyCall(agent.role, agent.llm as Policy, prompt.text, spec.context, signal, talk, done, failed);
}

/** The agent's conversation on the task: its final text. */
function conversation(
  spec: AttemptSpec,
  attemptNo: number,
  signal: AbortSignal,
  hooks: AttemptHooks,
): Promise<string> {
  let prompt: TaskPrompt;
  try {
    prompt = askedPrompt(spec);
  } catch (error) {
    return Promise.reject(error);
  }
  const talk = countedTalk(spec, attemptNo, signal, hooks);
  // Unique in the run and stable once stored: a paused call is answered by its id.
  talk.callScope = `${spec.nodeId}.${attemptNo}`;
  // The same for every attempt of the task run, in any process: its tools' keys derive from it.
  if (hooks.keyOf !== undefined) talk.keyScope = hooks.keyOf(spec.nodeId);
  if (spec.resume !== undefined) talk.resume = spec.resume;
  if (hooks.memoryFor !== undefined) talk.memory = hooks.memoryFor(spec.nodeId, attemptNo);
  const { onDelta } = hooks;
  if (onDelta !== undefined && (spec.agent.stream === true || hooks.stream === true)) {
    talk.onDelta = (delta) => onDelta(spec.nodeId, attemptNo, delta);
  }
  if (hooks.executor !== undefined) return remoteConversation(spec, attemptNo, prompt, signal, hooks, talk);
  return converse(speakerOf(spec), prompt, spec.context, signal, talk);
}

/**
 * Where the attempt's model calls report: counted under its node and attempt, priced, within the
 * run's budget and the agent's rate limit.
 */
function countedTalk(
  spec: AttemptSpec,
  attemptNo: number,
  signal: AbortSignal,
  hooks: AttemptHooks,
): ConversationHooks {
  // Built with assignments, not spreads: this runs once per attempt on every task's path.
  const talk: ConversationHooks = {
    now: hooks.now,
    onModelCall: (usage, durationMs, failure) =>
      hooks.onModelCall(spec.nodeId, attemptNo, usage, durationMs, failure),
    onToolCall: (record) => hooks.onToolCall(spec.nodeId, record),
  };
  if (hooks.beforeModelCall !== undefined) talk.beforeCall = hooks.beforeModelCall;
  if (hooks.priceOf !== undefined) talk.priceOf = hooks.priceOf;
  if (hooks.toolSessions !== undefined) talk.toolSessions = hooks.toolSessions;
  const { onToolProgress, waitTurn } = hooks;
  if (onToolProgress !== undefined)
    talk.onToolProgress = (tool, callId, progress) => onToolProgress(spec.nodeId, tool, callId, progress);
  if (waitTurn !== undefined && isRateLimited(spec.agent)) talk.waitTurn = () => waitTurn(spec.agent, signal);
  return talk;
}

/**
 * What the attempt's guardrails may use: its signal, and one-question model calls (the agent's model
 * unless another is named) counted as the attempt's own.
 */
function guardrailContext(
  spec: AttemptSpec,
  attemptNo: number,
  signal: AbortSignal,
  hooks: AttemptHooks,
): GuardrailContext {
  return {
    signal,
    ask(question, options = {}) {
      const speaker: Speaker = {
        role: `${spec.agent.role} (guardrail)`,
        llm: (options.llm as Llm | undefined) ?? spec.agent.llm,
        tools: [],
        maxIter: 1,
      };
      const prompt: TaskPrompt = { text: question, system: options.system ?? '', task: question };
      return converse(speaker, prompt, '', signal, countedTalk(spec, attemptNo, signal, hooks));
    },
  };
}

/**
 * The conversation on the run's executor, as a job of plain data: the budget is checked and the rate
 * limit waited for once, before it is sent; its model and tool calls come back as they happen.
 */
async function remoteConversation(
  spec: AttemptSpec,
  attemptNo: number,
  prompt: TaskPrompt,
  signal: AbortSignal,
  hooks: AttemptHooks,
  talk: ConversationHooks,
): Promise<string> {
  talk.beforeCall?.();
  await talk.waitTurn?.();
  const speaker = speakerOf(spec);
  const job: ConversationJob = {
    executionId: hooks.runId ?? '',
    nodeId: spec.nodeId,
    attempt: attemptNo,
    agent: spec.agent.role,
    tools: speaker.tools.map((t) => t.name),
    system: prompt.system,
    task: prompt.task,
    text: prompt.text,
    context: spec.context,
  };
  if (prompt.schema !== undefined) job.schema = prompt.schema;
  // MCP servers go by name: the worker calls them through its own connections, none is opened here.
  const sources = speaker.toolSources ?? [];
  if (sources.length > 0)
    job.sources = sources.map(({ name, subset }) =>
      subset === undefined ? { name } : { name, tools: [...subset] },
    );
  if (spec.delegation !== undefined) job.delegation = spec.delegation;
  if (talk.callScope !== undefined) job.callScope = talk.callScope;
  if (talk.keyScope !== undefined) job.keyScope = talk.keyScope;
  if (talk.resume !== undefined) job.resume = talk.resume;
  if (talk.onDelta !== undefined) job.stream = true;
  if (spec.timeoutMs !== undefined) job.deadline = Date.now() + spec.timeoutMs;
  const report = remoteReport(spec, attemptNo, hooks, talk);
  const outcome = await (hooks.executor as ConversationExecutor).converse(job, signal, report);
  if (outcome.worker !== undefined) hooks.onWorker?.(spec.nodeId, outcome.worker);
  if (!outcome.ok) throw failureOf(outcome);
  return outcome.text;
}

/** Where a remote conversation's progress goes: the attempt's hooks, as if it had run here. */
function remoteReport(
  spec: AttemptSpec,
  attemptNo: number,
  hooks: AttemptHooks,
  talk: ConversationHooks,
): (progress: ConversationProgress) => void {
  return (progress) => {
    if (progress.type === 'model.call') {
      const price = progress.modelId === undefined ? undefined : talk.priceOf?.(progress.modelId);
      const usage = pricedUsage({ ...progress.usage }, price);
      const { durationMs, failure, agent } = progress;
      if (agent === undefined) talk.onModelCall?.(usage, durationMs, failure);
      else hooks.onModelCall(spec.nodeId, attemptNo, usage, durationMs, failure, agent);
    } else if (progress.type === 'tool.call') talk.onToolCall?.(progress.record);
    else if (progress.type === 'tool.progress') {
      const { tool, callId, progress: report, agent } = progress;
      hooks.onToolProgress?.(spec.nodeId, tool, callId, report, agent);
    } else if (progress.type === 'model.delta') talk.onDelta?.(progress.delta);
    else hooks.onDelegation?.(progress);
  };
}

/**
 * The agent as it speaks in this task: with the task's tools and tool sources in place of its own
 * when the task grants any, and the crew's tools besides (over any of the same name).
 */
function speakerOf(spec: AttemptSpec): Speaker {
  const { agent, crewTools = [] } = spec;
  const taskTools = spec.tools ?? [];
  const taskSources = spec.toolSources ?? [];
  const own = taskTools.length > 0 || taskSources.length > 0;
  if (!own && crewTools.length === 0) return agent;
  const granted = new Map((own ? taskTools : agent.tools).map((t) => [t.name, t]));
  for (const tool of crewTools) granted.set(tool.name, tool);
  return Object.create(agent, {
    tools: { value: [...granted.values()] },
    toolSources: { value: own ? taskSources : (agent.toolSources ?? []) },
  }) as Speaker;
}

/** A task's output schema as JSON Schema, converted once per schema. */
const jsonSchemas = new WeakMap<ZodType, Record<string, unknown>>();
function jsonSchemaOf(schema: ZodType): Record<string, unknown> {
  let json = jsonSchemas.get(schema);
  if (json === undefined) {
    json = z.toJSONSchema(schema) as Record<string, unknown>;
    jsonSchemas.set(schema, json);
  }
  return json;
}

/** Whether an agent's calls are spaced: its own `maxRpm`, or its model's. */
function isRateLimited(agent: AttemptAgent): boolean {
  return agent.maxRpm !== undefined || (typeof agent.llm === 'object' && agent.llm.maxRpm !== undefined);
}

/**
 * The value of a task's output once its schema parsed it and its guardrail accepted it; with
 * `humanInput`, the attempt then ends waiting for a human's review of it (a wait, not a failure).
 */
async function checked(
  spec: AttemptSpec,
  raw: string,
  attemptNo: number,
  context: GuardrailContext,
): Promise<TaskRunValue> {
  const value: TaskRunValue = { raw };
  if (spec.outputSchema) value.structured = parseStructured(spec.name, raw, spec.outputSchema);
  const outputOf = (): TaskOutput => ({
    name: spec.name,
    description: spec.description,
    expectedOutput: spec.expectedOutput,
    agent: spec.agent.role,
    ...value,
  });
  for (const guardrail of spec.guardrail ?? []) {
    const output = outputOf();
    const verdict = readVerdict(await guardrail(output, context));
    if (!verdict.ok) {
      if (attemptNo >= (spec.maxAttempts ?? 1))
        throw new GuardrailFailedError(spec.name, verdict.reason, attemptNo);
      throw new GuardrailError(spec.name, verdict.reason);
    }
    if (verdict.replaced) replaceOutput(spec, value, verdict.value);
  }
  if (spec.humanInput === true) throw new HumanWait({ kind: 'review', output: outputOf() });
  return value;
}

/**
 * Puts a guardrail's `value` in place of the output: a text replaces the raw answer and, for a task
 * with an `outputSchema`, is read by it again (as CrewAI exports a guardrail's text again), so the
 * two never disagree; anything else replaces the structured value.
 */
function replaceOutput(spec: AttemptSpec, value: TaskRunValue, replacement: unknown): void {
  if (typeof replacement !== 'string') {
    value.structured = replacement;
    return;
  }
  value.raw = replacement;
  if (spec.outputSchema) value.structured = parseStructured(spec.name, replacement, spec.outputSchema);
}

/** A guardrail's answer in one shape; anything unexpected is a rejection saying so. */
function readVerdict(
  verdict: unknown,
): { ok: true; replaced: boolean; value?: unknown } | { ok: false; reason: string } {
  if (verdict === true) return { ok: true, replaced: false };
  if (verdict === false) return { ok: false, reason: 'no reason given' };
  if (typeof verdict === 'string') return { ok: false, reason: verdict };
  if (typeof verdict === 'object' && verdict !== null && 'ok' in verdict) {
    const given = verdict as { ok: unknown; value?: unknown; reason?: unknown };
    if (given.ok === true) return { ok: true, replaced: 'value' in given, value: given.value };
    return { ok: false, reason: typeof given.reason === 'string' ? given.reason : 'no reason given' };
  }
  return { ok: false, reason: `the guardrail answered ${describeThrown(verdict)}, not a verdict` };
}
