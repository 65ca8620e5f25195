import type { Attributes } from '@opentelemetry/api';
import { ATTR, OTHER_ERROR } from './attributes.js';
import type { EventOf } from './spans.js';

/** The events of a run that are marked on its span as span events, not traced as spans of their own. */
export type MarkedEvent = EventOf<
  'node.blocked' | 'delegation' | 'flow.route' | 'flow.round' | 'flow.paused' | 'flow.resumed' | 'store.error'
>;

/** A span event: its name and attributes. */
export interface SpanEvent {
  name: string;
  attributes: Attributes;
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
      return {
        name: 'statecrew.delegation',
        attributes: { [ATTR.nodeId]: event.task, [ATTR.agentName]: event.role },
      };
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
      return { name: 'statecrew.flow.paused', attributes: { [ATTR.waiting]: event.waiting } };
    case 'flow.resumed':
      return {
        name: 'statecrew.flow.resumed',
        attributes: { [ATTR.stepName]: event.step, [ATTR.route]: event.route },
      };
    case 'store.error':
      return {
        name: 'statecrew.store.error',
        attributes: {
          [ATTR.storeCollection]: event.collection,
          [ATTR.storeKey]: event.key,
          [ATTR.errorType]: event.code ?? OTHER_ERROR,
        },
      };
  }
}
