import { addUsage, emptyUsage } from '../models/usage.js';
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
  const facts: RunEventFacts = {
    startedAt: undefined,
    lastAt: undefined,
    status: undefined,
    blocked: [],
    delegations: [],
    managerCalls: 0,
    advisorUsage: emptyUsage(),
    verdicts: [],
    usage: emptyUsage(),
  };
  for (const event of events) {
    facts.lastAt = Math.max(facts.lastAt ?? event.at, event.at);
    if (runId !== undefined && event.type.startsWith('run.') && event.runId !== runId) continue;
    switch (event.type) {
      case 'run.started':
        facts.startedAt ??= event.at;
        break;
      case 'run.completed':
        facts.status = event.status;
        break;
      case 'run.failed':
        facts.status = event.code === 'aborted' ? 'aborted' : 'failed';
        break;
      case 'node.blocked':
        facts.blocked.push(event.nodeId);
        break;
      case 'delegation':
        facts.delegations.push({ task: event.task, role: event.role });
        break;
      case 'manager.call':
        facts.managerCalls += 1;
        addUsage(facts.advisorUsage, event.usage);
        addUsage(facts.usage, event.usage);
        break;
      case 'judge.verdict':
        facts.verdicts.push({ iteration: event.iteration, verdict: event.verdict, reply: event.reply });
        addUsage(facts.advisorUsage, event.usage);
        addUsage(facts.usage, event.usage);
        break;
      case 'model.call':
        addUsage(facts.usage, event.usage);
        break;
      default:
        break;
    }
  }
  return facts;
}
