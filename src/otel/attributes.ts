import type { Attributes, HrTime } from '@opentelemetry/api';
import type { Usage } from '../types.js';

/**
 * Attribute names: the OpenTelemetry GenAI semantic conventions where one fits, `statecrew.*` for
 * what only statecrew knows.
 */
export const ATTR = {
  operation: 'gen_ai.operation.name',
  agentName: 'gen_ai.agent.name',
  requestModel: 'gen_ai.request.model',
  provider: 'gen_ai.provider.name',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  errorType: 'error.type',
  runId: 'statecrew.run.id',
  runName: 'statecrew.run.name',
  runStatus: 'statecrew.run.status',
  runNodes: 'statecrew.run.nodes',
  process: 'statecrew.process',
  nodeId: 'statecrew.node.id',
  taskName: 'statecrew.task.name',
  attempt: 'statecrew.attempt',
  attempts: 'statecrew.attempts',
  retryable: 'statecrew.retryable',
  errorMessage: 'statecrew.error.message',
  retryDelayMs: 'statecrew.retry.delay_ms',
  blockedReason: 'statecrew.blocked.reason',
  /** What a waiting node waits for: `approval`, `review`, `human`, `event`, `sleep` or `crew`. */
  waitingFor: 'statecrew.node.waiting_for',
  delegationKind: 'statecrew.delegation.kind',
  delegationFrom: 'statecrew.delegation.from',
  delegationError: 'statecrew.delegation.error',
  calls: 'statecrew.usage.calls',
  costUsd: 'statecrew.cost_usd',
  managerPhase: 'statecrew.manager.phase',
  iteration: 'statecrew.loop.iteration',
  verdict: 'statecrew.judge.verdict',
  judgeReply: 'statecrew.judge.reply',
  prompt: 'statecrew.task.prompt',
  context: 'statecrew.task.context',
  output: 'statecrew.task.output',
  stepName: 'statecrew.step.name',
  stepRun: 'statecrew.step.run',
  stepOutput: 'statecrew.step.output',
  stepHandled: 'statecrew.step.handled',
  router: 'statecrew.flow.router',
  route: 'statecrew.flow.route',
  round: 'statecrew.flow.round',
  roundSteps: 'statecrew.flow.steps',
  emitted: 'statecrew.flow.emitted',
  waiting: 'statecrew.flow.waiting',
  waitingEvents: 'statecrew.flow.waiting_events',
  timeoutAt: 'statecrew.flow.timeout_at',
  event: 'statecrew.flow.event',
  wakeAt: 'statecrew.flow.wake_at',
  storeCollection: 'statecrew.store.collection',
  storeKey: 'statecrew.store.key',
  warningCode: 'statecrew.warning.code',
  missingInputs: 'statecrew.missing_inputs',
  ignoredKeys: 'statecrew.ignored_keys',
} as const;

/** The value of `error.type` when a failure has no code (the conventions' fallback). */
export const OTHER_ERROR = '_OTHER';

/**
 * Epoch milliseconds as an `HrTime`. The SDK takes a plain number at or below `performance.now()` for
 * a performance timestamp, so a run clock that starts near 0 would be shifted: a tuple is taken as is.
 */
export function toHrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  const nanos = Math.round((ms - seconds * 1000) * 1e6);
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos];
}

/** The usage attributes of a span: token counts always, calls and cost when there are some. */
export function usageAttributes(usage: Usage): Attributes {
  const attributes: Attributes = {
    [ATTR.inputTokens]: usage.inputTokens,
    [ATTR.outputTokens]: usage.outputTokens,
    [ATTR.calls]: usage.calls,
  };
  if (usage.costUsd !== undefined) attributes[ATTR.costUsd] = usage.costUsd;
  return attributes;
}

/** A model id as a price table names it (`'openai:gpt-4.1-mini'`): the model and, before a colon, its provider. */
export function modelAttributes(id: string | undefined): Attributes {
  if (id === undefined) return {};
  const colon = id.indexOf(':');
  if (colon <= 0) return { [ATTR.requestModel]: id };
  return { [ATTR.provider]: id.slice(0, colon), [ATTR.requestModel]: id.slice(colon + 1) };
}

/** An epoch ms time as an attribute: its ISO 8601 text (UTC). */
export function timeText(ms: number): string {
  return new Date(ms).toISOString();
}

/** A value as a string attribute: strings as they are, anything else as JSON. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
