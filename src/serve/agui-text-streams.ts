import { type BaseEvent, EventType } from '@ag-ui/core';
import type { StatecrewEvent } from '../types.js';

/** An AG-UI event as statecrew writes it (as `AguiEvent` in `agui-events.ts`, which uses this file). */
type AguiEvent = BaseEvent & Record<string, unknown>;

type Delta = Extract<StatecrewEvent, { type: 'model.delta' }>;

/** A text message streaming now: its id and the text sent so far. */
interface OpenMessage {
  messageId: string;
  attempt: number;
  text: string;
}

/**
 * The AG-UI text messages of a run's live text deltas (`model.delta`): a node's first delta opens an
 * assistant message (`TEXT_MESSAGE_START`), each delta is a `TEXT_MESSAGE_CONTENT`, and the node's
 * next kept event (its `model.call`, a tool call, its end) or the run's end closes it. A node whose
 * output is the text its last message streamed needs no second message of it ({@link covers}). A
 * reply this translator comes into after its first delta (a client that connected or reconnected in
 * the middle of it) is not streamed: the output, when the node completes, is then the one message of it.
 */
export class AguiTextStreams {
  readonly #open = new Map<string, OpenMessage>();
  /** The text of each node's last streamed message, until another event of the node comes between. */
  readonly #ended = new Map<string, string>();
  /** Each node's last kept event, and the one before its last model call (where that reply began). */
  readonly #lastKept = new Map<string, number>();
  readonly #replyFrom = new Map<string, number>();

  constructor(private readonly threadId: string) {}

  /**
   * The events of one delta (`seq`: the number of the last kept event before it): a message opened for
   * it when the node has none open and the delta begins its reply, and its content.
   */
  delta(event: Delta, seq: number): AguiEvent[] {
    const out: AguiEvent[] = [];
    let open = this.#open.get(event.nodeId);
    if (open !== undefined && open.attempt !== event.attempt) out.push(...this.#end(event.nodeId));
    if (open === undefined || open.attempt !== event.attempt) {
      // The reply began before this stream saw it: its start is not here to be sent.
      if (event.index > 0) return out;
      const messageId = this.#messageId(event.nodeId, this.#lastKept.get(event.nodeId) ?? seq);
      open = { messageId, attempt: event.attempt, text: '' };
      this.#open.set(event.nodeId, open);
      this.#ended.delete(event.nodeId);
      out.push({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' });
    }
    open.text += event.delta;
    out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: open.messageId, delta: event.delta });
    return out;
  }

  /** Closes what a kept event ends (a delta ends none): its node's open message, or every one at the run's start or end. */
  before(event: StatecrewEvent, seq: number): AguiEvent[] {
    if (event.type === 'model.delta') return [];
    this.#note(event, seq);
    if (event.type === 'run.started' || event.type === 'run.completed' || event.type === 'run.failed')
      return [...this.#open.keys()].flatMap((nodeId) => this.#end(nodeId));
    const nodeId = 'nodeId' in event && typeof event.nodeId === 'string' ? event.nodeId : undefined;
    if (nodeId === undefined) return [];
    if (this.#open.has(nodeId)) return this.#end(nodeId);
    // Only the node's end may stand for its last streamed message.
    if (event.type !== 'node.completed') this.#ended.delete(nodeId);
    return [];
  }

  /**
   * The id of the message that streamed `nodeId`'s last reply, had it been followed live (its model
   * call's reply began after its kept event before that call): a client that read it live holds the
   * output under this id.
   */
  streamedId(nodeId: string): string | undefined {
    const from = this.#replyFrom.get(nodeId);
    return from === undefined ? undefined : this.#messageId(nodeId, from);
  }

  /** Unique in the thread: a node streams one reply at a time, after its kept event `after`. */
  #messageId(nodeId: string, after: number): string {
    return `${this.threadId}:${nodeId}:${after}:text`;
  }

  /** Notes a kept event of a node: where its next reply begins, and where its last one began. */
  #note(event: StatecrewEvent, seq: number): void {
    if (!('nodeId' in event) || typeof event.nodeId !== 'string') return;
    const last = this.#lastKept.get(event.nodeId);
    if (event.type === 'model.call' && last !== undefined) this.#replyFrom.set(event.nodeId, last);
    this.#lastKept.set(event.nodeId, seq);
  }

  /** Whether `nodeId`'s last streamed message was `text` (its output): a client has it already. */
  covers(nodeId: string, text: string): boolean {
    const ended = this.#ended.get(nodeId);
    this.#ended.delete(nodeId);
    return ended === text;
  }

  #end(nodeId: string): AguiEvent[] {
    const open = this.#open.get(nodeId);
    if (open === undefined) return [];
    this.#open.delete(nodeId);
    this.#ended.set(nodeId, open.text);
    return [{ type: EventType.TEXT_MESSAGE_END, messageId: open.messageId }];
  }
}
