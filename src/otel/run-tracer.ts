import { type Attributes, SpanKind } from '@opentelemetry/api';
import { emptyUsage } from '../models/usage.js';
import type { StatecrewEvent, Usage } from '../types.js';
import { ATTR, OTHER_ERROR, textOf, toHrTime, usageAttributes } from './attributes.js';
import { traceNodeEvent } from './node-spans.js';
import { spanEventOf } from './run-events.js';
import {
  addRunUsage,
  type EventOf,
  markFailed,
  type RunSpan,
  type StepSpan,
  startSpan,
  type TraceSettings,
} from './spans.js';

/**
 * Turns one run's events (and those of the crews inside its flow steps) into spans, with the times
 * the events carry. It keeps only what is open: a settled node, step or run is forgotten.
 */
export class RunTracer {
  readonly #runs = new Map<string, RunSpan>();
  #rootSeen = false;
  #lastAt = 0;

  constructor(private readonly settings: TraceSettings) {}

  /** Handles one event; false when the root run's span is not recorded (nothing more to follow). */
  handle(event: StatecrewEvent): boolean {
    this.#lastAt = event.at;
    if (event.type === 'run.started') return this.#runStarted(event);
    const run = this.#runs.get(event.runId);
    if (run === undefined) return true;
    this.#dispatch(run, event);
    run.lastAt = event.at;
    return true;
  }

  /** Ends every span still open at the time of the last event seen. */
  close(): void {
    for (const run of [...this.#runs.values()]) if (this.#runs.has(run.id)) this.#endRun(run, this.#lastAt);
  }

  #runStarted(event: EventOf<'run.started'>): boolean {
    const root = !this.#rootSeen;
    this.#rootSeen = true;
    const kind = event.process === 'flow' ? 'flow' : 'crew';
    const parent = event.step === undefined ? undefined : this.#openStep(event.step);
    const label = (root ? this.settings.name : undefined) ?? (kind === 'crew' ? event.process : undefined);
    const attributes: Attributes = {
      [ATTR.runId]: event.runId,
      [ATTR.process]: event.process,
      [ATTR.runNodes]: event.nodes,
    };
    if (root && this.settings.name !== undefined) attributes[ATTR.runName] = this.settings.name;
    if (event.step !== undefined) attributes[ATTR.stepName] = event.step;
    const open = startSpan(
      this.settings,
      label === undefined ? kind : `${kind} ${label}`,
      parent?.step.ctx ?? this.settings.parentContext,
      event.at,
      SpanKind.INTERNAL,
      attributes,
    );
    // Not recorded (no SDK, or sampled out): neither is anything under it.
    if (root && !open.span.isRecording()) return false;
    this.#runs.set(event.runId, {
      ...open,
      id: event.runId,
      kind,
      parent: parent?.run,
      usage: emptyUsage(),
      nodes: new Map(),
      steps: new Map(),
      failure: undefined,
    });
    return true;
  }

  /** The open span of the step named `step` in a traced flow run: a crew run starting inside it. */
  #openStep(step: string): { run: RunSpan; step: StepSpan } | undefined {
    for (const run of this.#runs.values()) {
      if (run.kind !== 'flow') continue;
      for (const open of run.steps.values()) if (open.name === step) return { run, step: open };
    }
    return undefined;
  }

  /** Traces one event of an open run: as a span of its own, a span event on the run's, or its end. */
  #dispatch(run: RunSpan, event: StatecrewEvent): void {
    switch (event.type) {
      case 'node.started':
      case 'node.completed':
      case 'node.failed':
      case 'node.retrying':
      case 'node.waiting':
      case 'model.call':
      case 'tool.call':
        // A flow step's own lifecycle is traced from its `flow.step` events.
        if (run.kind === 'crew') traceNodeEvent(this.settings, run, event);
        return;
      case 'node.blocked':
      case 'delegation':
      case 'delegation.replied':
      case 'flow.route':
      case 'flow.round':
      case 'flow.paused':
      case 'flow.resumed':
      case 'flow.signaled':
      case 'flow.timed_out':
      case 'flow.sleeping':
      case 'store.error':
      case 'run.warning': {
        const marked = spanEventOf(event);
        run.span.addEvent(marked.name, marked.attributes, toHrTime(event.at));
        // A paused run's span says what it waits for, and until when.
        if (event.type === 'flow.paused') run.span.setAttributes(marked.attributes);
        return;
      }
      case 'manager.call':
      case 'judge.verdict':
        this.#advisorEvent(run, event);
        return;
      case 'flow.step':
        this.#step(run, event);
        return;
      case 'run.completed':
      case 'run.failed':
        this.#runEnded(run, event);
        return;
      case 'run.suspended':
        // Stopped for a later resume (its process stopping): neither failed nor settled.
        run.span.setAttribute(ATTR.runStatus, 'suspended');
        this.#endRun(run, event.at);
        return;
      case 'run.started':
      case 'node.ready':
      case 'model.delta':
        return;
    }
  }

  /** A manager's call or a judge's verdict: a span of the advisor's call. */
  #advisorEvent(run: RunSpan, event: EventOf<'manager.call' | 'judge.verdict'>): void {
    if (event.type === 'manager.call') {
      this.#advisorCall(run, event.at, event.usage, `manager ${event.phase}`, {
        [ATTR.agentName]: 'manager',
        [ATTR.managerPhase]: event.phase,
      });
      return;
    }
    const attributes: Attributes = {
      [ATTR.agentName]: 'judge',
      [ATTR.iteration]: event.iteration,
      [ATTR.verdict]: event.verdict,
    };
    if (this.settings.captureContent) attributes[ATTR.judgeReply] = event.reply;
    this.#advisorCall(run, event.at, event.usage, 'judge', attributes);
  }

  /** The run's end: its status (and failure) on its span, which ends with whatever of it is open. */
  #runEnded(run: RunSpan, event: EventOf<'run.completed' | 'run.failed'>): void {
    const { span } = run;
    if (event.type === 'run.completed') {
      span.setAttribute(ATTR.runStatus, event.status);
      if (event.status === 'failed') markFailed(span, run.failure, `The ${run.kind} run failed`);
      this.#endRun(run, event.at);
      return;
    }
    span.setAttribute(ATTR.runStatus, 'failed');
    markFailed(span, event.code, event.error);
    this.#endRun(run, event.at, event.code ?? OTHER_ERROR);
  }

  /**
   * A manager's or a judge's call, reported once it ended. They run between task runs, never beside
   * one, so the call began at the run's previous event.
   */
  #advisorCall(run: RunSpan, at: number, usage: Usage, name: string, attributes: Attributes): void {
    const open = startSpan(this.settings, name, run.ctx, run.lastAt, SpanKind.INTERNAL, {
      [ATTR.operation]: 'invoke_agent',
      ...attributes,
      ...usageAttributes(usage),
    });
    addRunUsage(run, usage);
    open.span.end(toHrTime(at));
  }

  #step(run: RunSpan, event: EventOf<'flow.step'>): void {
    const attributes = {
      [ATTR.stepName]: event.name,
      [ATTR.nodeId]: event.nodeId,
      [ATTR.stepRun]: event.run,
    };
    const start = () =>
      startSpan(this.settings, `step ${event.name}`, run.ctx, event.at, SpanKind.INTERNAL, attributes);
    if (event.status === 'started') {
      run.steps.set(event.nodeId, { ...start(), name: event.name });
      return;
    }
    if (event.status === 'retrying') {
      const attempt = { attempt: event.attempt ?? 0, delayMs: event.delayMs ?? 0 };
      run.steps.get(event.nodeId)?.span.addEvent('retry', attempt, toHrTime(event.at));
      return;
    }
    // A step refused before it started (`max_runs`) is a span of no length.
    const step = run.steps.get(event.nodeId) ?? start();
    run.steps.delete(event.nodeId);
    if (event.status === 'failed') {
      markFailed(step.span, event.code, event.error ?? 'The step failed');
      if (event.retryable !== undefined) step.span.setAttribute(ATTR.retryable, event.retryable);
      // A handled failure (a `failed(step)` trigger) does not fail the run: it is not the run's error.
      if (event.handled === true) step.span.setAttribute(ATTR.stepHandled, true);
      else run.failure ??= event.code ?? OTHER_ERROR;
    } else if (this.settings.captureContent && event.output !== undefined) {
      step.span.setAttribute(ATTR.stepOutput, textOf(event.output));
    }
    step.span.end(toHrTime(event.at));
  }

  /**
   * Ends a run's span at `at`, and first whatever of it is still open (the task runs of an aborted
   * run, the crews in its steps): as failed with `code` when the run failed.
   */
  #endRun(run: RunSpan, at: number, code?: string): void {
    const end = toHrTime(at);
    for (const child of this.#runs.values()) {
      if (child.parent === run) this.#endRun(child, at, code);
    }
    for (const open of [...run.nodes.values(), ...run.steps.values()]) {
      if (code !== undefined) markFailed(open.span, code, `The ${run.kind} run ended first`);
      open.span.end(end);
    }
    if (run.usage.calls > 0) run.span.setAttributes(usageAttributes(run.usage));
    run.span.end(end);
    this.#runs.delete(run.id);
  }
}
