import { type Attributes, SpanKind } from '@opentelemetry/api';
import { addUsage, emptyUsage } from '../models/usage.js';
import { ATTR, modelAttributes, OTHER_ERROR, textOf, toHrTime, usageAttributes } from './attributes.js';
import {
  addRunUsage,
  type EventOf,
  markFailed,
  type NodeSpan,
  type RunSpan,
  startSpan,
  type TraceSettings,
} from './spans.js';

/** The events of a crew's task runs. */
export type NodeEvent = EventOf<
  | 'node.started'
  | 'node.completed'
  | 'node.failed'
  | 'node.retrying'
  | 'node.waiting'
  | 'model.call'
  | 'tool.call'
>;

/**
 * Traces a task run's event: one `invoke_agent <role>` span over all its attempts (a failed attempt
 * and a retry are span events), with its model and tool calls as children.
 */
export function traceNodeEvent(settings: TraceSettings, run: RunSpan, event: NodeEvent): void {
  if (event.type === 'node.started') {
    nodeStarted(settings, run, event);
    return;
  }
  const node = run.nodes.get(event.nodeId);
  const at = toHrTime(event.at);
  switch (event.type) {
    case 'model.call':
      modelCall(settings, run, node, event);
      break;
    case 'tool.call':
      toolCall(settings, run, node, event);
      break;
    case 'node.retrying':
      node?.span.addEvent(
        'statecrew.node.retrying',
        { [ATTR.attempt]: event.attempt, [ATTR.retryDelayMs]: event.delayMs },
        at,
      );
      break;
    case 'node.waiting':
      // A wait is no failure: the span ends with its status unset, saying what it waits for.
      if (node === undefined) return;
      node.span.setAttributes({
        [ATTR.attempts]: event.attempt,
        [ATTR.waitingFor]: event.waitingFor.kind,
        ...usageAttributes(node.usage),
      });
      node.span.end(at);
      run.nodes.delete(event.nodeId);
      return;
    case 'node.completed':
      if (node === undefined) return;
      node.span.setAttributes({ [ATTR.attempts]: event.attempts, ...usageAttributes(node.usage) });
      if (settings.captureContent) node.span.setAttribute(ATTR.output, event.output.raw);
      node.span.end(at);
      run.nodes.delete(event.nodeId);
      return;
    case 'node.failed': {
      if (node === undefined) return;
      const code = event.code ?? OTHER_ERROR;
      if (event.willRetry) {
        node.span.addEvent(
          'statecrew.attempt.failed',
          {
            [ATTR.attempt]: event.attempt,
            [ATTR.errorType]: code,
            [ATTR.errorMessage]: event.error,
            [ATTR.retryable]: event.retryable,
          },
          at,
        );
        break;
      }
      node.span.setAttributes({ [ATTR.attempts]: event.attempt, ...usageAttributes(node.usage) });
      markFailed(node.span, code, event.error);
      node.span.end(at);
      run.nodes.delete(event.nodeId);
      run.failure ??= code;
      return;
    }
  }
  if (node !== undefined) node.lastAt = event.at;
}

/** The model id of an agent's role (a role named like an `Object` method is no model). */
function modelOf(settings: TraceSettings, role: string): string | undefined {
  return Object.hasOwn(settings.models, role) ? settings.models[role] : undefined;
}

function nodeStarted(settings: TraceSettings, run: RunSpan, event: EventOf<'node.started'>): void {
  const running = run.nodes.get(event.nodeId);
  if (running !== undefined) {
    // The next attempt of a node whose earlier attempt failed: the same span goes on.
    running.span.setAttribute(ATTR.attempt, event.attempt);
    running.lastAt = event.at;
    return;
  }
  const attributes: Attributes = {
    [ATTR.operation]: 'invoke_agent',
    [ATTR.agentName]: event.agent,
    [ATTR.nodeId]: event.nodeId,
    [ATTR.taskName]: event.name,
    [ATTR.attempt]: event.attempt,
    ...modelAttributes(modelOf(settings, event.agent)),
  };
  if (settings.captureContent) {
    if (event.prompt !== undefined) attributes[ATTR.prompt] = event.prompt;
    if (event.context !== undefined) attributes[ATTR.context] = event.context;
  }
  const open = startSpan(
    settings,
    `invoke_agent ${event.agent}`,
    run.ctx,
    event.at,
    SpanKind.INTERNAL,
    attributes,
  );
  run.nodes.set(event.nodeId, { ...open, agent: event.agent, usage: emptyUsage() });
}

/** A model call, reported once it ended: it began `durationMs` before. */
function modelCall(
  settings: TraceSettings,
  run: RunSpan,
  node: NodeSpan | undefined,
  event: EventOf<'model.call'>,
): void {
  const modelNames = modelAttributes(node === undefined ? undefined : modelOf(settings, node.agent));
  const requested = modelNames[ATTR.requestModel];
  const attributes: Attributes = {
    [ATTR.operation]: 'chat',
    ...modelNames,
    [ATTR.nodeId]: event.nodeId,
    [ATTR.attempt]: event.attempt,
    ...usageAttributes(event.usage),
  };
  const name = typeof requested === 'string' ? `chat ${requested}` : 'chat';
  const parent = node?.ctx ?? run.ctx;
  const open = startSpan(settings, name, parent, event.at - event.durationMs, SpanKind.CLIENT, attributes);
  if (event.error !== undefined) markFailed(open.span, event.code, event.error);
  open.span.end(toHrTime(event.at));
  if (node !== undefined) addUsage(node.usage, event.usage);
  addRunUsage(run, event.usage);
}

/** A tool call, reported once it ended: it began at the node's previous event (tools run one by one). */
function toolCall(
  settings: TraceSettings,
  run: RunSpan,
  node: NodeSpan | undefined,
  event: EventOf<'tool.call'>,
): void {
  const { call } = event;
  const attributes: Attributes = {
    [ATTR.operation]: 'execute_tool',
    [ATTR.toolName]: call.tool,
    [ATTR.nodeId]: event.nodeId,
  };
  if (settings.captureContent) {
    attributes[ATTR.toolArguments] = textOf(call.args);
    if (call.result !== undefined) attributes[ATTR.toolResult] = call.result;
  }
  const parent = node ?? run;
  const name = `execute_tool ${call.tool}`;
  const open = startSpan(settings, name, parent.ctx, parent.lastAt, SpanKind.INTERNAL, attributes);
  if (call.error !== undefined) markFailed(open.span, undefined, call.error);
  open.span.end(toHrTime(event.at));
}
