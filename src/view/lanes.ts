import { messageState } from './messages.js';
import type { AgentLanes, AgentSpan, TimelineMessage, ViewNode, ViewRun } from './model.js';

/** How long a run or a message lasted: as told, else (still going) until `now`, else nothing yet. */
function lasted(startedAt: number, durationMs: number | undefined, going: boolean, now: number | undefined) {
  return durationMs ?? (going && now !== undefined ? Math.max(0, now - startedAt) : 0);
}

/** A run's timed messages on the timeline, and the coworkers' spans answering them. */
function runMessages(
  node: ViewNode,
  run: ViewRun,
  origin: number,
  now: number | undefined,
): { messages: TimelineMessage[]; spans: AgentSpan[] } {
  const messages: TimelineMessage[] = [];
  const spans: AgentSpan[] = [];
  (run.messages ?? []).forEach((message, index) => {
    if (message.at === undefined) return;
    const state = messageState(message);
    const { kind, from, to, task } = message;
    const durationMs = lasted(message.at, message.durationMs, state === 'waiting', now);
    const placed: TimelineMessage = {
      node: node.id,
      run: run.id,
      index,
      kind,
      from,
      to,
      task,
      state,
      startMs: message.at - origin,
      durationMs,
    };
    if (message.code !== undefined) placed.code = message.code;
    messages.push(placed);
    if (state !== 'refused') {
      spans.push({
        agent: to,
        node: node.id,
        run: run.id,
        status: state,
        startMs: placed.startMs,
        durationMs,
      });
    }
  });
  return { messages, spans };
}

/**
 * The timeline as a lane per agent — each task run in its agent's lane, each coworker's answer in the
 * coworker's — with the messages between them; undefined when no agent of the run messaged another
 * (at a known time). `origin` is the run's start; `now` ends what is still going.
 */
export function agentLanes(
  nodes: readonly ViewNode[],
  origin: number | undefined,
  now?: number,
): AgentLanes | undefined {
  if (origin === undefined) return undefined;
  const spans: AgentSpan[] = [];
  const messages: TimelineMessage[] = [];
  for (const node of nodes) {
    for (const run of node.runs) {
      if (run.startedAt !== undefined && run.agent !== undefined && run.agent !== '') {
        const durationMs = lasted(run.startedAt, run.durationMs, run.status === 'running', now);
        const startMs = run.startedAt - origin;
        spans.push({ agent: run.agent, node: node.id, run: run.id, status: run.status, startMs, durationMs });
      }
      const asked = runMessages(node, run, origin, now);
      spans.push(...asked.spans);
      messages.push(...asked.messages);
    }
  }
  if (messages.length === 0) return undefined;
  spans.sort((a, b) => a.startMs - b.startMs);
  messages.sort((a, b) => a.startMs - b.startMs);
  // Lanes in the order agents first work; an agent only ever named in a refused call gets none.
  const agents = [...new Set([...spans.map((s) => s.agent), ...messages.map((m) => m.from)])];
  return { agents, spans, messages };
}
