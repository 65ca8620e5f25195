import type { Attributes } from '@opentelemetry/api';
import { ATTR, OTHER_ERROR, timeText } from './attributes.js';
import type { EventOf } from './spans.js';

/** The events of a run that are marked on its span as span events, not traced as spans of their own. */
export type MarkedEvent = EventOf<
  | 'node.blocked'
  | 'delegation'
  | 'delegation.replied'
  | 'flow.route'
  | 'flow.round'
  | 'flow.paused'
  | 'flow.resumed'
  | 'flow.signaled'
  | 'flow.timed_out'
  | 'flow.sleeping'
  | 'store.error'
  | 'run.warning'
>;

/** A span event: its name and attributes. */
export interface SpanEvent {
  name: string;
  attributes: Attributes;
}

/**
 * What a paused flow run waits for: its waiting steps, the events its wait steps wait for (when some
 * do), and the earliest time one of them times out (when one has a deadline).
 */
export function pausedAttributes(event: EventOf<'flow.paused'>): Attributes {
  const attributes: Attributes = { [ATTR.waiting]: event.waiting };
  const waits = event.waitingFor ?? [];
  const events = waits.flatMap((w) => (w.event === undefined ? [] : [w.event]));
  if (events.length > 0) attributes[ATTR.waitingEvents] = events;
  const deadlines = waits.flatMap((w) => (w.timeoutAt === undefined ? [] : [w.timeoutAt]));
  if (deadlines.length > 0) attributes[ATTR.timeoutAt] = timeText(Math.min(...deadlines));
  return attributes;
}

/** The span event a run's event is marked as on the run's span. */
export function spanEventOf(event: MarkedEvent): SpanEvent {
  switch (event.type) {
    case 'node.blocked':
      return {
        name: 'statecrew.node.blocked',
        attributes: { [ATTR.nodeId]: event.nodeId, [ATTR.blockedReason]: event.reason },
      };
    case 'delegation':
    case 'delegation.replied':
      return delegationEvent(event);
    case 'flow.route':
    case 'flow.round':
    case 'flow.paused':
    case 'flow.resumed':
    case 'flow.signaled':
    case 'flow.timed_out':
    case 'flow.sleeping':
      return flowEvent(event);
    case 'store.error':
      return {
        name: 'statecrew.store.error',
        attributes: {
          [ATTR.storeCollection]: event.collection,
          [ATTR.storeKey]: event.key,
          [ATTR.errorType]: event.code ?? OTHER_ERROR,
        },
      };
    case 'run.warning':
      return {
        name: 'statecrew.run.warning',
        attributes: {
          [ATTR.warningCode]: event.code,
          ...(event.code === 'missing_input'
            ? { [ATTR.missingInputs]: event.details.missingInputs.map((m) => m.name) }
            : { [ATTR.ignoredKeys]: event.details.ignoredKeys.map((k) => `${k.file}:${k.line} ${k.key}`) }),
        },
      };
  }
}

/** A flow's moment marked on the run's span: a route, a round, a pause and what ends it, a sleep. */
function flowEvent(
  event: EventOf<
    | 'flow.route'
    | 'flow.round'
    | 'flow.paused'
    | 'flow.resumed'
    | 'flow.signaled'
    | 'flow.timed_out'
    | 'flow.sleeping'
  >,
): SpanEvent {
  switch (event.type) {
    case 'flow.route':
      return {
        name: 'statecrew.flow.route',
        attributes: { [ATTR.router]: event.router, [ATTR.route]: event.label },
      };
    case 'flow.round':
      return {
        name: 'statecrew.flow.round',
        attributes: {
          [ATTR.round]: event.round,
          [ATTR.roundSteps]: event.steps,
          [ATTR.emitted]: event.emitted,
        },
      };
    case 'flow.paused':
      return { name: 'statecrew.flow.paused', attributes: pausedAttributes(event) };
    case 'flow.resumed':
      return {
        name: 'statecrew.flow.resumed',
        attributes: { [ATTR.stepName]: event.step, [ATTR.route]: event.route },
      };
    case 'flow.signaled':
      return {
        name: 'statecrew.flow.signaled',
        attributes: { [ATTR.stepName]: event.step, [ATTR.event]: event.event },
      };
    case 'flow.timed_out':
      return { name: 'statecrew.flow.timed_out', attributes: { [ATTR.stepName]: event.step } };
    case 'flow.sleeping':
      return {
        name: 'statecrew.flow.sleeping',
        attributes: {
          [ATTR.stepName]: event.step,
          [ATTR.nodeId]: event.nodeId,
          [ATTR.wakeAt]: timeText(event.wakeAt),
        },
      };
  }
}

/** A hand-over marked on the run's span: a manager's allocation, an agent's delegation, or its reply. */
function delegationEvent(event: EventOf<'delegation' | 'delegation.replied'>): SpanEvent {
  if (event.type === 'delegation' && event.kind === 'allocate') {
    const attributes = {
      [ATTR.nodeId]: event.task,
      [ATTR.agentName]: event.role,
      [ATTR.delegationKind]: event.kind,
    };
    return { name: 'statecrew.delegation', attributes };
  }
  const attributes: Attributes = {
    [ATTR.nodeId]: event.nodeId,
    [ATTR.agentName]: event.to,
    [ATTR.delegationKind]: event.kind,
    [ATTR.delegationFrom]: event.from,
  };
  if (event.type === 'delegation') return { name: 'statecrew.delegation', attributes };
  if (event.error !== undefined) attributes[ATTR.delegationError] = event.error;
  return { name: 'statecrew.delegation.replied', attributes };
}
