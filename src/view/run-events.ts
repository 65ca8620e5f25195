import { RunRecorder } from '../runtime/engine/recorder.js';
import type { StatecrewEvent, Usage } from '../types.js';
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
  delegations: { task: string; role: string }[];
  managerCalls: number;
  /** What the manager or the judge spent. */
  advisorUsage: Usage;
  verdicts: Verdict[];
  /** Every call of the run (model, manager, judge), each counted once. */
  usage: Usage;
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
    recorder.apply(event);
    if (runId !== undefined && event.type.startsWith('run.') && event.runId !== runId) continue;
    if (event.type === 'run.started') startedAt ??= event.at;
    else if (event.type === 'run.completed') status = event.status;
    else if (event.type === 'run.failed') status = event.code === 'aborted' ? 'aborted' : 'failed';
  }
  return {
    startedAt,
    lastAt,
    status,
    blocked: recorder.blocked,
    delegations: recorder.delegations,
    managerCalls: recorder.managerCalls,
    advisorUsage: recorder.managerUsage,
    verdicts: recorder.verdicts,
    usage: recorder.usage,
  };
}
