import { type BaseEvent, EventType } from '@ag-ui/core';
import type { FollowedEvent } from '../runtime/durable/follow-events.js';
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
 * output is the text its last message streamed needs no second message of it ({@link covers}).
 */
export class AguiTextStreams {
  readonly #open = new Map<string, OpenMessage>();
  /** The text of each node's last streamed message, until another event of the node comes between. */
  readonly #ended = new Map<string, string>();

  constructor(private readonly threadId: string) {}

  /** The events of one delta: a message opened for it when the node has none open, and its content. */
  delta(event: Delta, { seq }: FollowedEvent): AguiEvent[] {
    const out: AguiEvent[] = [];
    let open = this.#open.get(event.nodeId);
    if (open !== undefined && open.attempt !== event.attempt) out.push(...this.#end(event.nodeId));
    if (open === undefined || open.attempt !== event.attempt) {
      // Unique in the thread: a node streams one message at a time, after its kept event `seq`.
      const messageId = `${this.threadId}:${event.nodeId}:${seq}:text`;
      open = { messageId, attempt: event.attempt, text: '' };
      this.#open.set(event.nodeId, open);
      this.#ended.delete(event.nodeId);
      out.push({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' });
    }
    open.text += event.delta;
    out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: open.messageId, delta: event.delta });
    return out;
  }

  /** Closes what a kept event ends: its node's open message, or every one at the run's start or end. */
  before(event: StatecrewEvent): AguiEvent[] {
    if (event.type === 'run.started' || event.type === 'run.completed' || event.type === 'run.failed')
      return [...this.#open.keys()].flatMap((nodeId) => this.#end(nodeId));
    const nodeId = 'nodeId' in event && typeof event.nodeId === 'string' ? event.nodeId : undefined;
    if (nodeId === undefined) return [];
    if (this.#open.has(nodeId)) return this.#end(nodeId);
    // Only the node's end may stand for its last streamed message.
    if (event.type !== 'node.completed') this.#ended.delete(nodeId);
    return [];
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
