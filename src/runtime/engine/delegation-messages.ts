import { ASK_QUESTION, DELEGATE_WORK } from '../../actors/delegation-tools.js';
import type { DelegationMessage, ToolCallRecord } from '../../types.js';
import type { UnstampedEvent } from './unstamped-event.js';

type EventOf<T extends UnstampedEvent['type']> = Extract<UnstampedEvent, { type: T }>;

/** An agent's `delegation` event (not a manager's allocation), sent `at`, as the message it reports asked. */
export function askedMessage(
  event: Extract<EventOf<'delegation'>, { kind: 'delegate' | 'ask' }>,
  at: number,
): DelegationMessage {
  const message: DelegationMessage = {
    kind: event.kind,
    from: event.from,
    to: event.to,
    task: event.task,
    at,
  };
  if (event.context !== undefined && event.context !== '') message.context = event.context;
  if (event.depth !== undefined) message.depth = event.depth;
  return message;
}

/**
 * Lays a `delegation.replied` event on the message it answers: the latest one of the same kind
 * between the same agents still without an answer (an agent's tool calls run one at a time). A reply
 * to a question asked before the run paused, which this run did not see asked, becomes a message of
 * its own, its task unknown. The reply came `at` (epoch ms).
 */
export function replyTo(
  messages: DelegationMessage[],
  event: EventOf<'delegation.replied'>,
  at: number,
): void {
  let open: DelegationMessage | undefined;
  for (let i = messages.length - 1; i >= 0 && open === undefined; i -= 1) {
    const m = messages[i] as DelegationMessage;
    const answered = m.durationMs !== undefined || m.code !== undefined;
    if (!answered && m.kind === event.kind && m.from === event.from && m.to === event.to) open = m;
  }
  if (open === undefined) {
    const { kind, from, to } = event;
    open = { kind, from, to, task: '', at: at - event.durationMs };
    messages.push(open);
  }
  open.durationMs = event.durationMs;
  if (event.reply !== undefined) open.reply = event.reply;
  if (event.error !== undefined) open.error = event.error;
}

/**
 * A `delegate_work` or `ask_question` call refused before it reached a coworker (its record has a
 * `code`), as a message from `call.agent` (else the node's agent, `agent`) to the coworker it named;
 * undefined for any other call.
 */
export function refusedMessage(
  call: ToolCallRecord,
  agent: string,
): Omit<DelegationMessage, 'at'> | undefined {
  if (call.code === undefined || (call.tool !== DELEGATE_WORK && call.tool !== ASK_QUESTION))
    return undefined;
  const args: Partial<Record<string, unknown>> =
    typeof call.args === 'object' && call.args !== null ? call.args : {};
  const text = (key: string) => {
    const value = args[key];
    return typeof value === 'string' ? value : '';
  };
  const message: Omit<DelegationMessage, 'at'> = {
    kind: call.tool === DELEGATE_WORK ? 'delegate' : 'ask',
    from: call.agent ?? agent,
    to: text('coworker'),
    task: text(call.tool === DELEGATE_WORK ? 'task' : 'question'),
    code: call.code,
  };
  if (text('context') !== '') message.context = text('context');
  if (call.error !== undefined) message.error = call.error;
  return message;
}
