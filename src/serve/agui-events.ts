import { type BaseEvent, EventType, type Interrupt } from '@ag-ui/core';
import type { FollowedEvent } from '../runtime/durable/follow-events.js';
import type { StatecrewEvent, WaitingStep } from '../types.js';
import { AguiTextStreams } from './agui-text-streams.js';

/** An AG-UI event as statecrew writes it: its `type` and fields, with the time it happened. */
export type AguiEvent = BaseEvent & Record<string, unknown>;

type Of<T extends StatecrewEvent['type']> = Extract<StatecrewEvent, { type: T }>;

/**
 * Translates one run's kept events, in order, into the AG-UI protocol's (`@ag-ui/core`): the run is
 * the thread; each segment of it (from a `run.started` to its end) is an AG-UI run; a task run or a
 * flow step is a step whose output is an assistant text message; a tool call is a tool call with its
 * result; a pause ends the AG-UI run with an `interrupt` outcome naming what waits; every other event
 * is a `CUSTOM` event named `statecrew.<type>` carrying it whole. Steps and runs a dead process left
 * open are closed before the next segment starts, so a client's event checks hold.
 */
export class AguiTranslator {
  #run: string | undefined;
  readonly #openSteps = new Set<string>();
  /** What the run waits for, from its last `flow.paused` / `crew.paused`. */
  #interrupts: Interrupt[] = [];
  /** The text messages of live deltas. */
  readonly #streams: AguiTextStreams;

  constructor(private readonly threadId: string) {
    this.#streams = new AguiTextStreams(threadId);
  }

  /** The AG-UI events of one event: a kept one, or a live text delta (see `AguiTextStreams`). */
  translate(followed: FollowedEvent): AguiEvent[] {
    const { seq, event } = followed;
    const timestamp = Math.round(event.at);
    const out =
      event.type === 'model.delta'
        ? this.#streams.delta(event, followed)
        : [...this.#streams.before(event), ...this.#translate(event, seq)];
    return out.map((e) => ({ timestamp, ...e }));
  }

  #translate(event: StatecrewEvent, seq: number): AguiEvent[] {
    switch (event.type) {
      case 'run.started':
        return [
          ...this.#closeOpenRun('The process running it stopped; the run was resumed'),
          this.#start(seq),
        ];
      case 'node.started':
        return this.#stepStarted(event.nodeId);
      case 'node.completed':
        return [
          ...(this.#streams.covers(event.nodeId, event.output.raw)
            ? []
            : this.#text(`${event.nodeId}:${seq}`, event.output.raw)),
          ...this.#stepFinished(event.nodeId),
        ];
      case 'node.failed':
        return event.willRetry ? [custom(event)] : [custom(event), ...this.#stepFinished(event.nodeId)];
      case 'node.waiting':
        // A sleeping step goes on by itself; any other wait ends the step's part of this run.
        return event.waitingFor.kind === 'sleep'
          ? [custom(event)]
          : [custom(event), ...this.#stepFinished(event.nodeId)];
      case 'flow.step':
        return this.#flowStep(event, seq);
      case 'tool.call':
        return this.#toolCall(event, seq);
      case 'flow.paused':
        this.#interrupts = waitingOf(event).map((w) => ({
          id: `${this.threadId}:${w.step}`,
          reason: w.kind === 'event' ? `waits for event ${w.event}` : 'waits for a human',
          metadata: { ...w },
        }));
        return [custom(event)];
      case 'crew.paused':
        this.#interrupts = event.pending.map((p) => ({
          id: p.kind === 'approval' ? p.callId : p.nodeId,
          reason:
            p.kind === 'approval'
              ? `tool ${p.tool} waits for approval`
              : `output of ${p.nodeId} waits for review`,
          metadata: { ...p },
        }));
        return [custom(event)];
      case 'run.completed':
        return this.#finished(event);
      case 'run.failed':
        return this.#failed(event.error, event.code);
      default:
        return [custom(event)];
    }
  }

  #start(seq: number): AguiEvent {
    this.#run = `${this.threadId}:${seq}`;
    this.#interrupts = [];
    return { type: EventType.RUN_STARTED, threadId: this.threadId, runId: this.#run };
  }

  #stepStarted(name: string): AguiEvent[] {
    const open = this.#openSteps.has(name) ? this.#stepFinished(name) : [];
    this.#openSteps.add(name);
    return [...open, { type: EventType.STEP_STARTED, stepName: name }];
  }

  #stepFinished(name: string): AguiEvent[] {
    if (!this.#openSteps.delete(name)) return [];
    return [{ type: EventType.STEP_FINISHED, stepName: name }];
  }

  #flowStep(event: Of<'flow.step'>, seq: number): AguiEvent[] {
    if (event.status === 'started') return this.#stepStarted(event.name);
    if (event.status === 'retrying') return [custom(event)];
    const text =
      event.status === 'completed' ? this.#text(`${event.nodeId}:${seq}`, textOf(event.output)) : [];
    return [
      ...(event.status === 'failed' ? [custom(event)] : []),
      ...text,
      ...this.#stepFinished(event.name),
    ];
  }

  #text(messageId: string, text: string): AguiEvent[] {
    if (text === '') return [];
    return [
      { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: text },
      { type: EventType.TEXT_MESSAGE_END, messageId },
    ];
  }

  #toolCall(event: Of<'tool.call'>, seq: number): AguiEvent[] {
    const toolCallId = `${event.nodeId}:tool:${seq}`;
    const { call } = event;
    const content = call.error ?? call.result ?? '';
    return [
      { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: call.tool },
      { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: JSON.stringify(call.args ?? {}) },
      { type: EventType.TOOL_CALL_END, toolCallId },
      {
        type: EventType.TOOL_CALL_RESULT,
        messageId: `${toolCallId}:result`,
        toolCallId,
        content,
        role: 'tool',
      },
    ];
  }

  #finished(event: Of<'run.completed'>): AguiEvent[] {
    if (this.#run === undefined) return [custom(event)];
    if (event.status === 'failed') return this.#failed('The run failed', 'run_failed');
    const steps = this.#closeSteps();
    const runId = this.#run;
    this.#run = undefined;
    const outcome =
      event.status === 'paused' && this.#interrupts.length > 0
        ? { type: 'interrupt', interrupts: this.#interrupts }
        : { type: 'success' };
    return [
      ...steps,
      {
        type: EventType.RUN_FINISHED,
        threadId: this.threadId,
        runId,
        outcome,
        result: { status: event.status },
      },
    ];
  }

  #failed(message: string, code: string | undefined): AguiEvent[] {
    if (this.#run === undefined) return [];
    const steps = this.#closeSteps();
    this.#run = undefined;
    return [...steps, { type: EventType.RUN_ERROR, message, ...(code === undefined ? {} : { code }) }];
  }

  /** Ends a run a dead process left open (before the next segment starts). */
  #closeOpenRun(message: string): AguiEvent[] {
    return this.#run === undefined ? [] : this.#failed(message, 'process_stopped');
  }

  #closeSteps(): AguiEvent[] {
    const steps = [...this.#openSteps].map((stepName) => ({ type: EventType.STEP_FINISHED, stepName }));
    this.#openSteps.clear();
    return steps;
  }
}

/** What a paused flow waits for, step by step. */
function waitingOf(event: Of<'flow.paused'>): (Partial<WaitingStep> & { step: string })[] {
  return event.waitingFor ?? event.waiting.map((step) => ({ step }));
}

/** A statecrew event as an AG-UI `CUSTOM` event. */
function custom(event: StatecrewEvent): AguiEvent {
  return { type: EventType.CUSTOM, name: `statecrew.${event.type}`, value: event };
}

/** A step's output as text: a string as it is, anything else as JSON. */
function textOf(output: unknown): string {
  if (output === undefined || output === null) return '';
  if (typeof output === 'string') return output;
  try {
    return JSON.stringify(output) ?? '';
  } catch {
    return String(output);
  }
}
