import { RunRecorder } from '../runtime/engine/recorder.js';
import type { Delegation, DelegationMessage, StatecrewEvent, Usage } from '../types.js';
import type { RunViewStatus } from './model.js';

/** A loop judge's verdict on one iteration. */
export interface Verdict {
  iteration: number;
  verdict: 'yes' | 'no';
  reply: string;
}

/** What a run's events tell about the run as a whole. */
export interface RunEventFacts {
  /** Epoch ms of `run.started`, and of the last event. */
  startedAt: number | undefined;
  lastAt: number | undefined;
  /** The status `run.completed` or `run.failed` gave; undefined while the run goes on. */
  status: RunViewStatus | undefined;
  blocked: string[];
  /** Every hand-over, in the order asked: a manager's allocations and agents' messages alike. */
  delegations: Delegation[];
  /** The messages each node's agents sent coworkers, by node id (nodes that sent none are absent). */
  messages: Map<string, DelegationMessage[]>;
  managerCalls: number;
  /** What the manager or the judge spent. */
  advisorUsage: Usage;
  verdicts: Verdict[];
  /** Every call of the run (model, manager, judge), each counted once. */
  usage: Usage;
  /** What each agent's model calls spent, by role. */
  agents: Record<string, Usage>;
}

/**
 * Folds a run's events into {@link RunEventFacts}. With `runId`, the `run.*` events of other runs
 * (the crews inside a flow's steps) say nothing about the run's start and status.
 */
export function runEventFacts(events: readonly StatecrewEvent[], runId?: string): RunEventFacts {
  // What ran and what it spent is the run's own bookkeeping: the recorder folds the events as a run does.
  const recorder = new RunRecorder();
  let startedAt: number | undefined;
  let lastAt: number | undefined;
  let status: RunViewStatus | undefined;
  for (const event of events) {
    lastAt = Math.max(lastAt ?? event.at, event.at);
    recorder.apply(event, event.at);
    if (runId !== undefined && event.type.startsWith('run.') && event.runId !== runId) continue;
    if (event.type === 'run.started') startedAt ??= event.at;
    else if (event.type === 'run.completed') status = event.status;
    else if (event.type === 'run.failed') status = event.code === 'aborted' ? 'aborted' : 'failed';
  }
  const messages = new Map<string, DelegationMessage[]>();
  for (const [nodeId, record] of recorder.nodes) {
    if (record.delegations.length > 0) messages.set(nodeId, record.delegations);
  }
  return {
    startedAt,
    lastAt,
    status,
    blocked: recorder.blocked,
    delegations: recorder.delegations,
    messages,
    managerCalls: recorder.managerCalls,
    advisorUsage: recorder.managerUsage,
    verdicts: recorder.verdicts,
    usage: recorder.usage,
    agents: Object.fromEntries(recorder.agentsUsage),
  };
}
