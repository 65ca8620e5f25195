import type { ConversationExecutor } from '../../actors/conversation-job.js';
import type { AttemptAgent, AttemptHooks } from '../../actors/task-attempt.js';
import type { ToolSessions } from '../../actors/tool-sessions.js';
import type { CallGate } from '../engine/budget.js';
import type { Clock } from '../engine/clock.js';
import { waitTurn } from '../engine/rate-limit.js';
import type { RunRecorder } from '../engine/recorder.js';
import { nodeRunKey } from '../run/idempotency-key.js';
import type { RunEvents, UnstampedEvent } from '../run/run-events.js';
import type { RunMemory } from './memory.js';

/** What a crew run's task attempts report to, and through, besides the run's events. */
export interface AttemptHookOptions {
  /** What the run's model calls may spend, and what they cost. */
  gate?: CallGate | undefined;
  /** Every agent streams its model's text. */
  stream?: boolean | undefined;
  /** Holds the attempts' conversations elsewhere (a queue of workers). */
  executor?: ConversationExecutor | undefined;
  /** The run's execution memory, which the results tool reads. */
  memory?: RunMemory | undefined;
  /** The run's tool sources (MCP servers), opened once each when a task first needs them. */
  toolSessions?: ToolSessions | undefined;
}

/**
 * Where one crew run's task attempts report: model calls and deltas to `recorder` and `hub` (events
 * built only when someone listens), tool calls to `hub`; rate limits wait on `clock`. Built once per
 * runner: an optional hook is present only when its option is set, as `runTaskAttempt` tests for it.
 */
export function attemptHooks(
  hub: RunEvents,
  recorder: RunRecorder,
  clock: Clock,
  options: AttemptHookOptions,
): AttemptHooks {
  const { beforeCall, priceOf } = options.gate ?? {};
  const replies = new ReplyPieces();
  const hooks: AttemptHooks = {
    now: hub.now,
    ...(beforeCall === undefined ? {} : { beforeModelCall: beforeCall }),
    ...(options.stream === true ? { stream: true } : {}),
    ...(priceOf === undefined ? {} : { priceOf }),
    ...(options.toolSessions === undefined ? {} : { toolSessions: options.toolSessions }),
    ...(options.memory === undefined
      ? {}
      : {
          memoryFor: (nodeId: string, attempt: number) =>
            (options.memory as RunMemory).forAttempt((usage, durationMs) =>
              hooks.onModelCall(nodeId, attempt, usage, durationMs),
            ),
        }),
    ...(options.executor === undefined
      ? {}
      : {
          executor: options.executor,
          runId: hub.runId,
          onWorker: (nodeId: string, worker: string) => recorder.worker(nodeId, worker),
        }),
    keyOf: (nodeId) => nodeRunKey(hub.runId, nodeId),
    waitTurn: (agent, signal) => agentTurn(agent, clock, signal),
    onDelta(nodeId, attempt, delta) {
      const index = replies.next(nodeId, attempt);
      // A streamed piece of text is for live followers only (the output it ends in is what is kept).
      if (hub.followed) hub.emit({ type: 'model.delta', nodeId, attempt, delta, index });
    },
    onModelCall(nodeId, attempt, usage, durationMs, failure, agent) {
      replies.end(nodeId, attempt);
      const event: Extract<UnstampedEvent, { type: 'model.call' }> = {
        type: 'model.call',
        nodeId,
        attempt,
        usage,
        durationMs,
      };
      if (agent !== undefined) event.agent = agent;
      if (failure !== undefined) event.error = failure.message;
      if (failure?.code !== undefined) event.code = failure.code;
      hub.emit(event);
    },
    onToolCall: (nodeId, call) => hub.emit({ type: 'tool.call', nodeId, call }),
    onToolProgress(nodeId, tool, callId, progress, agent) {
      // Progress is for listeners only.
      if (!hub.observed) return;
      const event: Extract<UnstampedEvent, { type: 'tool.progress' }> = {
        type: 'tool.progress',
        nodeId,
        tool,
        callId,
        ...progress,
      };
      if (agent !== undefined) event.agent = agent;
      hub.emit(event);
    },
    onDelegation: (progress) =>
      hub.emit(
        progress.type === 'delegation'
          ? { type: 'delegation', ...progress.event }
          : { type: 'delegation.replied', ...progress.event },
      ),
  };
  return hooks;
}

/** Resolves when `agent`'s next model call may start: its own `maxRpm`, then its model's. */
function agentTurn(agent: AttemptAgent, clock: Clock, signal: AbortSignal): Promise<void> {
  const turns: Promise<void>[] = [];
  if (agent.maxRpm !== undefined) turns.push(waitTurn(agent.rateKey ?? agent, agent.maxRpm, clock, signal));
  const { llm } = agent;
  if (typeof llm === 'object' && llm.maxRpm !== undefined)
    turns.push(waitTurn(llm, llm.maxRpm, clock, signal));
  return Promise.all(turns).then(() => {});
}

/** How many pieces each node attempt's model reply under way has streamed so far. */
class ReplyPieces {
  readonly #counts = new Map<string, number>();

  /** The place of the reply's next piece (0 for its first), counted. */
  next(nodeId: string, attempt: number): number {
    const key = `${nodeId}\u0000${attempt}`;
    const index = this.#counts.get(key) ?? 0;
    this.#counts.set(key, index + 1);
    return index;
  }

  /** The model call ended: the node attempt's next piece begins another reply. */
  end(nodeId: string, attempt: number): void {
    // Most runs stream nothing: no key to build (every model call ends here).
    if (this.#counts.size === 0) return;
    this.#counts.delete(`${nodeId}\u0000${attempt}`);
  }
}
