import { type BaseEvent, EventType } from '@ag-ui/core';
import { PATH_SEPARATOR } from '../machines/flow/waits.js';
import type { FollowedEvent } from '../runtime/durable/follow-events.js';
import type { StatecrewEvent, WaitingFor, WaitingStep } from '../types.js';
import { type AskedInterrupt, type AskedItem, interruptsOf } from './agui-interrupts.js';
import { AguiTextStreams } from './agui-text-streams.js';

/** An AG-UI event as statecrew writes it: its `type` and fields, with the time it happened. */
export type AguiEvent = BaseEvent & Record<string, unknown>;

/**
 * One AG-UI event a followed event made. `index` is its place among the AG-UI events its kept event
 * makes however the run's text was followed (the `<index>` of its SSE id); an event made of live text
 * — a streamed message's start, content or end — has none, and no SSE id.
 */
export interface TranslatedEvent {
  event: AguiEvent;
  index?: number;
  /** Another id a client may hold its message under: the id it streamed under, read live. */
  knownAs?: string;
}

type Of<T extends StatecrewEvent['type']> = Extract<StatecrewEvent, { type: T }>;

/**
 * The AG-UI events of one kind of statecrew event (`seq`: its number in the run; a live delta's, the
 * number of the last kept event before it).
 */
type Handlers = { [T in StatecrewEvent['type']]?: (event: Of<T>, seq: number) => AguiEvent[] };

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

/**
 * Translates one run's kept events, in order, into the AG-UI protocol's (`@ag-ui/core`): the run is
 * the thread; each segment of it (from a `run.started` to its end) is an AG-UI run; a crew's task run
 * or a flow step (its `flow.step` events) is one step whose output is one assistant text message (the
 * tasks of a crew a step kicks off are steps inside it; that crew's own run events are `CUSTOM`); a
 * tool call is a tool call with its result; a task's live text deltas (`model.delta`) are one
 * assistant text message streamed while it runs (see `AguiTextStreams`); a pause ends the AG-UI run with an `interrupt` outcome
 * saying what each waiting item asks; an abort with a `cancelled` outcome; a failed or partial run
 * with `RUN_ERROR`; every other event is a `CUSTOM` event named `statecrew.<type>` carrying it whole.
 * Steps and runs a dead process left open are closed before the next segment starts, and nothing is
 * written outside an AG-UI run (a `CUSTOM` event that comes between two runs opens the next), so a
 * client's event checks hold. One handler per kind of event: a new kind is one more entry.
 */
export class AguiTranslator {
  #run: string | undefined;
  /** The run id of the segment's own events: a flow step's crew or child run has another. */
  #root: string | undefined;
  readonly #openSteps = new Set<string>();
  /** What each flow step waits for, from its last `node.waiting`: a pause's interrupts read it. */
  readonly #waits = new Map<string, WaitingFor>();
  /** What the run waits for, from its last `flow.paused` / `crew.paused`. */
  #interrupts: AskedInterrupt[] = [];
  /** What failed or was blocked in this segment, for a failed or partial run's error. */
  #failures: string[] = [];
  /** Whether an AG-UI run is open in what was written, and the `CUSTOM` events waiting for one. */
  #open = false;
  #held: AguiEvent[] = [];
  /** The text messages of live deltas, open or just ended. */
  readonly #streams: AguiTextStreams;
  /** The events of the last translation made of live text, and those it leaves out (a streamed text). */
  #live = new Set<AguiEvent>();
  #unsent = new Set<AguiEvent>();
  #aliases = new Map<AguiEvent, string>();

  readonly #handlers: Handlers = {
    'run.started': (event, seq) =>
      this.#isChild(event)
        ? [custom(event)]
        : [
            ...this.#closeOpenRun('The process running it stopped; the run was resumed'),
            this.#start(event, seq),
          ],
    'node.started': (event) => (this.#isFlowStep(event) ? [custom(event)] : this.#stepStarted(event.nodeId)),
    'node.completed': (event, seq) => this.#nodeCompleted(event, seq),
    'node.failed': (event) => this.#nodeFailed(event),
    'node.waiting': (event) => this.#nodeWaiting(event),
    'node.blocked': (event) => {
      this.#failures.push(`${event.nodeId}: blocked by ${event.reason}`);
      return [custom(event)];
    },
    'flow.step': (event, seq) => this.#flowStep(event, seq),
    'tool.call': (event, seq) => this.#toolCall(event, seq),
    'model.delta': (event, seq) => this.#liveMade(this.#streams.delta(event, seq)),
    'flow.paused': (event) => {
      if (this.#isChild(event)) return [custom(event)];
      this.#interrupts = interruptsOf(
        this.threadId,
        waitingOf(event).map((w) => this.#askedOf(w)),
      );
      return [custom(event)];
    },
    'crew.paused': (event) => {
      if (this.#isChild(event)) return [custom(event)];
      this.#interrupts = interruptsOf(this.threadId, event.pending);
      return [custom(event)];
    },
    'run.completed': (event) => (this.#isChild(event) ? [custom(event)] : this.#finished(event)),
    'run.failed': (event) => {
      if (this.#isChild(event)) return [custom(event)];
      return event.code === 'aborted' ? this.#cancelled(event.error) : this.#failed(event.error, event.code);
    },
  };

  /**
   * @param threadId The run's id: the ids of its AG-UI runs, messages and interrupts start with it.
   * @param thread What the `threadId` of `RUN_STARTED` and `RUN_FINISHED` says: the run's thread when
   *   it was kicked off on one (its runs then read as one AG-UI thread), else its id.
   */
  constructor(
    private readonly threadId: string,
    private readonly thread: string = threadId,
  ) {
    this.#streams = new AguiTextStreams(threadId);
  }

  /**
   * The AG-UI events of one event — a kept one, or a live text delta — each stamped with the time it
   * happened. A kept event first ends the text message its node (or, at the run's start or end, any
   * node) was streaming.
   */
  translate({ seq, event }: FollowedEvent): TranslatedEvent[] {
    this.#live = new Set();
    this.#unsent = new Set();
    this.#aliases = new Map();
    const timestamp = Math.round(event.at);
    const handler = this.#handlers[event.type] as
      | ((event: StatecrewEvent, seq: number) => AguiEvent[])
      | undefined;
    const out = [
      ...this.#liveMade(this.#streams.before(event, seq)),
      ...(handler === undefined ? [custom(event)] : handler(event, seq)),
    ];
    const translated: TranslatedEvent[] = [];
    let index = 0;
    for (const e of this.#place(out)) {
      const stamped = { timestamp, ...e };
      if (this.#live.has(e)) translated.push({ event: stamped });
      else if (this.#unsent.has(e)) index++;
      else {
        const knownAs = this.#aliases.get(e);
        translated.push({ event: stamped, index: index++, ...(knownAs === undefined ? {} : { knownAs }) });
      }
    }
    return translated;
  }

  /** `events`, noted as made of live text. */
  #liveMade(events: AguiEvent[]): AguiEvent[] {
    for (const e of events) this.#live.add(e);
    return events;
  }

  /** `out` as a client takes it: nothing outside an AG-UI run (a `CUSTOM` event waits for the next). */
  #place(out: AguiEvent[]): AguiEvent[] {
    const placed: AguiEvent[] = [];
    for (const e of out) {
      if (e.type === EventType.RUN_STARTED) {
        placed.push(e, ...this.#held);
        this.#held = [];
        this.#open = true;
      } else if (!this.#open) {
        if (e.type === EventType.CUSTOM) this.#held.push(e);
      } else {
        placed.push(e);
        if (e.type === EventType.RUN_FINISHED || e.type === EventType.RUN_ERROR) this.#open = false;
      }
    }
    return placed;
  }

  #start(event: Of<'run.started'>, seq: number): AguiEvent {
    this.#run = `${this.threadId}:${seq}`;
    this.#root = event.runId;
    this.#interrupts = [];
    this.#failures = [];
    return { type: EventType.RUN_STARTED, threadId: this.thread, runId: this.#run };
  }

  /** Whether a `node.*` event is a flow step's own (its `flow.step` events stand for it). */
  #isFlowStep(event: { runId: string; step?: string }): boolean {
    return event.step !== undefined && event.runId === this.#root;
  }

  /** Whether an event is a flow step's crew's or child run's (its run events are not the segment's). */
  #isChild(event: { runId: string; step?: string }): boolean {
    return event.step !== undefined && event.runId !== this.#root;
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

  #nodeCompleted(event: Of<'node.completed'>, seq: number): AguiEvent[] {
    if (this.#isFlowStep(event)) return [custom(event)];
    const text = this.#text(`${event.nodeId}:${seq}`, event.output.raw);
    // The text the task streamed is its output: a client has it already. Its message keeps its
    // places all the same, so the SSE ids of what follows are those a stream without it gives.
    if (this.#streams.covers(event.nodeId, event.output.raw)) for (const e of text) this.#unsent.add(e);
    const streamedId = this.#streams.streamedId(event.nodeId);
    if (streamedId !== undefined) for (const e of text) this.#aliases.set(e, streamedId);
    return [...text, ...this.#stepFinished(event.nodeId)];
  }

  #nodeFailed(event: Of<'node.failed'>): AguiEvent[] {
    if (!event.willRetry) this.#failures.push(`${event.nodeId}: ${event.error}`);
    if (event.willRetry || this.#isFlowStep(event)) return [custom(event)];
    return [custom(event), ...this.#stepFinished(event.nodeId)];
  }

  #nodeWaiting(event: Of<'node.waiting'>): AguiEvent[] {
    if (this.#isFlowStep(event)) {
      this.#waits.set(event.nodeId, event.waitingFor);
      return [custom(event)];
    }
    // A child flow's step that waits: what it asks, for its flow step's interrupt.
    if (this.#isChild(event)) this.#waits.set(`${event.runId}|${event.nodeId}`, event.waitingFor);
    // A sleeping task goes on by itself; any other wait ends the task's part of this run.
    return event.waitingFor.kind === 'sleep'
      ? [custom(event)]
      : [custom(event), ...this.#stepFinished(event.nodeId)];
  }

  #flowStep(event: Of<'flow.step'>, seq: number): AguiEvent[] {
    if (event.status === 'started') return this.#stepStarted(event.name);
    if (event.status === 'retrying') return [custom(event)];
    if (event.status === 'failed' && event.handled !== true)
      this.#failures.push(`${event.name}: ${event.error ?? 'failed'}`);
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

  /** What the step of a child flow that its flow step waits on asks, as the child's `node.waiting` told it. */
  #childWait(wait: Extract<WaitingFor, { kind: 'flow' }>): WaitingFor | undefined {
    const leaf = wait.path.split(PATH_SEPARATOR).at(-1) ?? '';
    return this.#waits.get(`${wait.runId}|${leaf}`);
  }

  /** What a waiting flow step asks, as its `node.waiting` told it (the pause names the steps). */
  #askedOf(given: Partial<WaitingStep> & { step: string }): AskedItem {
    let w = given;
    const nodeId = w.nodeId ?? w.step;
    const timeout = w.timeoutAt === undefined ? {} : { timeoutAt: w.timeoutAt };
    const found = this.#waits.get(nodeId);
    const wait = found?.kind === 'flow' ? this.#childWait(found) : found;
    // A child flow's wait is asked, and answered, by its path from this run (`review › approve`).
    if (found?.kind === 'flow') w = { ...w, step: found.path };
    if (wait?.kind === 'crew') {
      const { crew, executionId, pending } = wait;
      return { kind: 'crew', step: w.step, nodeId, crew, executionId, pending };
    }
    if (w.kind === 'event' || wait?.kind === 'event') {
      const event = w.event ?? (wait?.kind === 'event' ? wait.event : '');
      return { kind: 'event', step: w.step, nodeId, event, ...timeout };
    }
    const human = wait?.kind === 'human' ? wait : { prompt: `Answer step "${w.step}"`, routes: [] };
    return { kind: 'human', step: w.step, nodeId, prompt: human.prompt, routes: human.routes, ...timeout };
  }

  #finished(event: Of<'run.completed'>): AguiEvent[] {
    if (this.#run === undefined) return [custom(event)];
    if (event.status === 'failed') return this.#failed(this.#why('The run failed'), 'run_failed');
    if (event.status === 'partial') return this.#failed(this.#why('The run ended partial'), 'run_partial');
    const interrupts = this.#interrupts.map((i) => i.interrupt);
    const outcome =
      event.status === 'paused' && interrupts.length > 0
        ? { type: 'interrupt', interrupts }
        : { type: 'success' };
    return this.#runFinished(outcome, { status: event.status });
  }

  /** `what`, with what failed or was blocked in this segment. */
  #why(what: string): string {
    return this.#failures.length === 0 ? what : `${what}: ${this.#failures.join('; ')}`;
  }

  #runFinished(outcome: Record<string, unknown>, result: Record<string, unknown>): AguiEvent[] {
    const steps = this.#closeSteps();
    const runId = this.#run;
    this.#run = undefined;
    return [...steps, { type: EventType.RUN_FINISHED, threadId: this.thread, runId, outcome, result }];
  }

  /** An aborted run: stopped by whoever ran it, not failed (AG-UI's `cancelled` outcome). */
  #cancelled(reason: string): AguiEvent[] {
    if (this.#run === undefined) return [];
    return this.#runFinished({ type: 'cancelled' }, { status: 'aborted', reason });
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
