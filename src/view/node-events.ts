import { addUsage, emptyUsage } from '../models/usage.js';
import type { StatecrewEvent, TaskOutput } from '../types.js';
import type { ViewRun } from './model.js';
import { plain } from './plain.js';

type EventOf<T extends StatecrewEvent['type']> = Extract<StatecrewEvent, { type: T }>;

/** What the events of one node run tell, beyond what a result keeps. */
interface Open {
  run: ViewRun;
  /** When the attempt in progress started. */
  attemptAt: number | undefined;
}

/** A task output's text and parsed value on a view run. */
export function setOutput(run: ViewRun, output: Pick<TaskOutput, 'raw' | 'structured'>): void {
  run.output = output.raw;
  if (output.structured !== undefined) run.structured = plain(output.structured);
}

function started(open: Map<string, Open>, event: EventOf<'node.started'>): void {
  let entry = open.get(event.nodeId);
  if (entry === undefined) {
    entry = {
      run: { id: event.nodeId, status: 'running', startedAt: event.at, attemptSpans: [] },
      attemptAt: undefined,
    };
    open.set(event.nodeId, entry);
  }
  const { run } = entry;
  run.status = 'running';
  run.attempts = event.attempt;
  run.retries = event.attempt - 1;
  if (event.agent !== '') run.agent = event.agent;
  if (event.prompt !== undefined) run.prompt = event.prompt;
  if (event.context !== undefined) run.context = event.context;
  entry.attemptAt = event.at;
}

function settle(entry: Open, at: number, ok: boolean): void {
  const start = entry.attemptAt ?? at;
  entry.run.attemptSpans?.push({ startedAt: start, durationMs: Math.max(0, at - start), ok });
  entry.attemptAt = undefined;
}

/**
 * Folds the `node.*` and `model.call` events of a run into one {@link ViewRun} per node id: the
 * prompt and context it was given, each attempt's span, its retries, output, usage and failure.
 */
export function foldNodeEvents(events: readonly StatecrewEvent[]): Map<string, ViewRun> {
  const open = new Map<string, Open>();
  for (const event of events) {
    switch (event.type) {
      case 'node.started':
        started(open, event);
        break;
      case 'node.completed': {
        const entry = open.get(event.nodeId);
        if (entry === undefined) break;
        settle(entry, event.at, true);
        entry.run.status = 'completed';
        entry.run.attempts = event.attempts;
        entry.run.durationMs = event.durationMs;
        setOutput(entry.run, event.output);
        break;
      }
      case 'node.failed': {
        const entry = open.get(event.nodeId);
        if (entry === undefined) break;
        settle(entry, event.at, false);
        if (event.willRetry) break;
        entry.run.status = 'failed';
        entry.run.durationMs = event.durationMs;
        entry.run.error = event.error;
        if (event.code !== undefined) entry.run.code = event.code;
        break;
      }
      case 'node.waiting': {
        // A node that waits for a human (a tool call to approve, its output to review…) paused.
        const entry = open.get(event.nodeId);
        if (entry === undefined || event.waitingFor.kind === 'sleep') break;
        settle(entry, event.at, true);
        entry.run.status = 'paused';
        break;
      }
      case 'model.call': {
        const entry = open.get(event.nodeId);
        if (entry === undefined) break;
        entry.run.usage = addUsage(entry.run.usage ?? emptyUsage(), event.usage);
        if (entry.run.usage.costUsd !== undefined) entry.run.costUsd = entry.run.usage.costUsd;
        break;
      }
      default:
        break;
    }
  }
  return new Map([...open].map(([id, entry]) => [id, entry.run]));
}
