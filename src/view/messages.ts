import { ASK_QUESTION, DELEGATE_WORK } from '../actors/delegation-tools.js';
import { refusedMessage } from '../runtime/engine/delegation-messages.js';
import type { CrewOutput, DelegationMessage, NodeExecutionInfo, ToolCallRecord } from '../types.js';
import type { MessageState, ViewMessage, ViewRun } from './model.js';

/** How a message went: refused before it was sent, failed, answered, or still out. */
export function messageState(message: ViewMessage): MessageState {
  if (message.code !== undefined) return 'refused';
  if (message.error !== undefined) return 'failed';
  return message.reply !== undefined || message.durationMs !== undefined ? 'replied' : 'waiting';
}

/** Copies of `messages` on `run`, when there are any. */
export function setMessages(
  run: ViewRun,
  messages: readonly (DelegationMessage | ViewMessage)[] | undefined,
): void {
  if (messages !== undefined && messages.length > 0) run.messages = messages.map((m) => ({ ...m }));
}

const argText = (call: ToolCallRecord, key: string): string | undefined => {
  const value = (call.args as Partial<Record<string, unknown>> | null | undefined)?.[key];
  return typeof value === 'string' ? value : undefined;
};

/**
 * Whether `call` is the delegation tool call that sent `message`: the same tool, from the same agent
 * (`agent` when the call does not name one), with the same task or question.
 */
function sent(call: ToolCallRecord, agent: string, message: ViewMessage): boolean {
  const tool = message.kind === 'delegate' ? DELEGATE_WORK : ASK_QUESTION;
  const asked = argText(call, message.kind === 'delegate' ? 'task' : 'question');
  return (
    call.tool === tool &&
    call.code === undefined &&
    (call.agent ?? agent) === message.from &&
    asked === message.task
  );
}

/** A node's messages as its result alone tells them (no times): each asked one with its call's reply, then the refused calls. */
function nodeMessages(node: NodeExecutionInfo, output: CrewOutput): ViewMessage[] {
  const calls = [...node.toolCalls];
  const messages: ViewMessage[] = [];
  for (const d of output.delegations) {
    if (d.kind === 'allocate' || d.nodeId !== node.nodeId) continue;
    const message: ViewMessage = { kind: d.kind, from: d.from, to: d.to, task: d.task };
    const at = calls.findIndex((call) => sent(call, node.agent, message));
    const call = at < 0 ? undefined : calls.splice(at, 1)[0];
    const context = call === undefined ? undefined : argText(call, 'context');
    if (context !== undefined && context !== '') message.context = context;
    if (call?.result !== undefined) message.reply = call.result;
    if (call?.error !== undefined) message.error = call.error;
    messages.push(message);
  }
  for (const call of node.toolCalls) {
    const refused = refusedMessage(call, node.agent);
    if (refused !== undefined) messages.push(refused);
  }
  return messages;
}

/**
 * The messages between agents a run's result tells of, by node id, for a view made without the run's
 * events: who asked whom and what (`delegations`), and the reply the asking call got (its tool call).
 */
export function resultMessages(output: CrewOutput): Map<string, ViewMessage[]> {
  const byNode = new Map<string, ViewMessage[]>();
  for (const node of output.nodes) {
    const messages = nodeMessages(node, output);
    if (messages.length > 0) byNode.set(node.nodeId, messages);
  }
  return byNode;
}
