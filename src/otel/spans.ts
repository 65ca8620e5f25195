import {
  type Attributes,
  type Context,
  type Span,
  type SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { addUsage } from '../models/usage.js';
import type { StatecrewEvent, Usage } from '../types.js';
import { ATTR, OTHER_ERROR, toHrTime } from './attributes.js';

/** The event of a given `type`. */
export type EventOf<T extends StatecrewEvent['type']> = Extract<StatecrewEvent, { type: T }>;

/** How a run is traced, every default already applied. */
export interface TraceSettings {
  tracer: Tracer;
  parentContext: Context;
  captureContent: boolean;
  /** The root run's name (a crew's or a flow's), for its span name. */
  name: string | undefined;
  /** Agent role → model id. */
  models: Readonly<Record<string, string>>;
}

/** An open span and the context its children start in. */
export interface OpenSpan {
  span: Span;
  ctx: Context;
  /** The time of the latest event that concerns it: where the next call made inside it began. */
  lastAt: number;
}

/** A task run's span, open from its first attempt's start until it settles. */
export interface NodeSpan extends OpenSpan {
  /** The role of the agent running it. */
  agent: string;
  usage: Usage;
}

/** A flow step run's span. */
export interface StepSpan extends OpenSpan {
  name: string;
}

/** A crew's or a flow's run span, and what of it is still open. */
export interface RunSpan extends OpenSpan {
  id: string;
  kind: 'crew' | 'flow';
  /** The flow run whose step this crew runs in. */
  parent: RunSpan | undefined;
  usage: Usage;
  nodes: Map<string, NodeSpan>;
  steps: Map<string, StepSpan>;
  /** The code of the first node or step that failed for good: the run's `error.type` if it fails. */
  failure: string | undefined;
}

/** Starts a span at `at` (epoch ms) under `parent`. */
export function startSpan(
  settings: TraceSettings,
  name: string,
  parent: Context,
  at: number,
  kind: SpanKind,
  attributes: Attributes,
): OpenSpan {
  const span = settings.tracer.startSpan(name, { kind, startTime: toHrTime(at), attributes }, parent);
  return { span, ctx: trace.setSpan(parent, span), lastAt: at };
}

/** Marks a span failed: status ERROR with the message, `error.type` the code (or `_OTHER`). */
export function markFailed(span: Span, code: string | undefined, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.setAttribute(ATTR.errorType, code ?? OTHER_ERROR);
}

/** Counts a call's usage for its run, and for the flow run the crew runs inside of. */
export function addRunUsage(run: RunSpan, usage: Usage): void {
  addUsage(run.usage, usage);
  if (run.parent !== undefined) addUsage(run.parent.usage, usage);
}
