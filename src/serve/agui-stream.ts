import { EventType } from '@ag-ui/core';
import type { Context } from 'hono';
import { InvalidOptionError } from '../errors.js';
import { type AguiEvent, AguiTranslator } from './agui-events.js';
import type { EventWriter } from './event-stream.js';

/**
 * Where an AG-UI stream goes on from: after AG-UI event `index` of kept event `seq` (the SSE id
 * `<seq>:<index>` of the last one a client saw), or after every AG-UI event of kept event `seq`
 * (`index` absent: a plain event number). `{ seq: 0 }` is the start.
 */
export interface AguiPosition {
  seq: number;
  index?: number;
}

/**
 * The position a client asks for: its `Last-Event-ID` header (a reconnect), else the `after` query
 * parameter, else the start. Anything but `<seq>` or `<seq>:<index>` (whole numbers ≥ 0) is
 * `invalid_option`, naming where it came from.
 */
export function aguiPositionOf(c: Context, route: string): AguiPosition {
  const header = c.req.header('last-event-id');
  const query = c.req.query('after');
  const [where, text] = header !== undefined ? ['Last-Event-ID', header] : ['after', query];
  if (text === undefined || text === '') return { seq: 0 };
  const match = /^([0-9]{1,15})(?::([0-9]{1,15}))?$/.exec(text);
  if (match === null)
    throw new InvalidOptionError(route, where, '<seq> or <seq>:<index> (an AG-UI event id)', text);
  const seq = Number(match[1]);
  return match[2] === undefined ? { seq } : { seq, index: Number(match[2]) };
}

/**
 * What is open at a point of an AG-UI stream — the run, its steps, a text message, a tool call — as
 * the events that opened them: a stream that goes on from that point opens with them again, so a
 * client (which checks that a run starts first and that what ends was started) takes it.
 */
export class AguiFrame {
  #run: AguiEvent | undefined;
  readonly #open = new Map<string, AguiEvent>();

  /** Notes what `event` opens or closes. */
  observe(event: AguiEvent): void {
    const key = frameKey(event);
    switch (event.type) {
      case EventType.RUN_STARTED:
        this.#run = event;
        this.#open.clear();
        return;
      case EventType.RUN_FINISHED:
      case EventType.RUN_ERROR:
        this.#run = undefined;
        this.#open.clear();
        return;
      case EventType.STEP_STARTED:
      case EventType.TEXT_MESSAGE_START:
      case EventType.TOOL_CALL_START:
        if (key !== undefined) this.#open.set(key, event);
        return;
      case EventType.STEP_FINISHED:
      case EventType.TEXT_MESSAGE_END:
      case EventType.TOOL_CALL_END:
        if (key !== undefined) this.#open.delete(key);
        return;
    }
  }

  /** The events that open again what is open now, in the order they first came. */
  reopen(): AguiEvent[] {
    return this.#run === undefined ? [] : [this.#run, ...this.#open.values()];
  }
}

/** Which open thing an opening or closing event is about. */
function frameKey(event: AguiEvent): string | undefined {
  if (typeof event.stepName === 'string') return `step:${event.stepName}`;
  if (typeof event.messageId === 'string' && event.type !== EventType.TOOL_CALL_RESULT)
    return `message:${event.messageId}`;
  if (typeof event.toolCallId === 'string') return `tool:${event.toolCallId}`;
  return undefined;
}

/** Options of {@link aguiWriter}. */
export interface AguiWriterOptions {
  /** Write only what comes after this position, opening again what is open there. @default the start */
  from?: AguiPosition | undefined;
  /**
   * The ids of the messages and tool calls the client holds (its input's `messages`): their events
   * are left out — a task's output also when the client holds it as the message it streamed live —
   * so a client that reads the run again does not add them twice.
   */
  known?: ReadonlySet<string> | undefined;
  /** The run's thread, as the `threadId` of its AG-UI runs says it. @default the run's id */
  thread?: string | undefined;
}

/** Whether AG-UI event `index` of kept event `seq` lies at or before `from`. */
function reached(from: AguiPosition, seq: number, index: number): boolean {
  return seq < from.seq || (seq === from.seq && (from.index === undefined || index <= from.index));
}

/** Whether `event` is part of a message or tool call the client holds. */
function isKnown(event: AguiEvent, known: ReadonlySet<string>): boolean {
  const id = event.type.startsWith('TOOL_CALL_') ? (event.messageId ?? event.toolCallId) : event.messageId;
  return typeof id === 'string' && known.has(id);
}

/**
 * A writer of the AG-UI events of one run's events, read from its first: each AG-UI event of a kept
 * event under its own SSE id `<seq>:<index>` (the kept event's number, the AG-UI event's place among
 * those it makes), so a reconnect with any of them as `Last-Event-ID` goes on right after it; the
 * events before `from` are translated but not written, and the first written is preceded (without an
 * id) by what opens again the run and steps open there. What live text deltas make (a streamed
 * message) has no id: a reconnect gets the kept events, and the task's output as a message of its own
 * when its streamed message began before the reconnect.
 */
export function aguiWriter(threadId: string, options: AguiWriterOptions = {}): EventWriter {
  const translator = new AguiTranslator(threadId, options.thread);
  const frame = new AguiFrame();
  const { from = { seq: 0 }, known } = options;
  let reopened = from.seq === 0;
  return async (stream, followed) => {
    for (const { event, index, knownAs } of translator.translate(followed)) {
      // Live text comes only after what was kept before this stream: it is new unless `from` is later.
      if (index === undefined ? followed.seq < from.seq : reached(from, followed.seq, index)) {
        frame.observe(event);
        continue;
      }
      if (!reopened) {
        reopened = true;
        for (const open of frame.reopen()) await stream.writeSSE({ data: JSON.stringify(open) });
      }
      frame.observe(event);
      if (known !== undefined && (isKnown(event, known) || (knownAs !== undefined && known.has(knownAs))))
        continue;
      const id = index === undefined ? {} : { id: `${followed.seq}:${index}` };
      await stream.writeSSE({ ...id, data: JSON.stringify(event) });
    }
  };
}
