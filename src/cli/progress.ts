import { createLogUpdate } from 'log-update';
import type { StatecrewEvent } from '../types.js';

/** Where a run's events are shown while it runs. */
export interface Progress {
  event(event: StatecrewEvent): void;
  /** The run ended: the last frame stays. */
  end(): void;
}

/** A writable text stream (stdout, stderr, or a test's buffer). */
export interface TextOut {
  write(text: string): unknown;
  columns?: number;
  rows?: number;
}

/** A crew's events inside a flow step (another run id than the flow's) are marked with the step. */
const prefix = (event: StatecrewEvent, rootId: string) =>
  event.step === undefined || event.runId === rootId ? '' : `[${event.step}] `;

/**
 * One plain line per lifecycle event (node starts, completions, failures, retries, blocks; pauses;
 * the run's start and end): what a log or a CI job wants, with no terminal control codes. Events of
 * a crew inside a flow step (run ids other than `rootId`) start with `[<step>]`.
 */
export function plainProgress(out: TextOut, rootId: string): Progress {
  return {
    event(event) {
      const line = plainLine(event);
      if (line !== undefined) out.write(`${prefix(event, rootId)}${line}\n`);
    },
    end() {},
  };
}

function plainLine(event: StatecrewEvent): string | undefined {
  switch (event.type) {
    case 'run.started':
      return `run ${event.runId} started (${event.process}, ${event.nodes} nodes)`;
    case 'node.started':
      return `${event.nodeId} started${event.agent === '' ? '' : ` by ${event.agent}`} (attempt ${event.attempt})`;
    case 'node.completed':
      return `${event.nodeId} completed in ${event.durationMs} ms`;
    case 'node.failed':
      return `${event.nodeId} failed: ${event.error}${event.willRetry ? ' (will retry)' : ''}`;
    case 'node.retrying':
      return `${event.nodeId} retrying in ${event.delayMs} ms (attempt ${event.attempt})`;
    case 'node.blocked':
      return `${event.nodeId} blocked by ${event.reason}`;
    case 'flow.paused':
      return `paused: waiting for ${event.waiting.join(', ')}`;
    case 'flow.resumed':
      return `resumed: ${event.step} answered ${event.route}`;
    case 'run.completed':
      return `run ${event.runId} ${event.status} in ${event.totalTimeMs} ms`;
    case 'run.failed':
      return `run ${event.runId} failed: ${event.error}`;
    default:
      return undefined;
  }
}

type NodeState = 'waiting' | 'running' | 'retrying' | 'done' | 'failed' | 'blocked';

interface NodeLine {
  id: string;
  state: NodeState;
  agent: string;
  attempt: number;
  startedAt: number;
  durationMs: number;
  tokens: number;
  note: string;
}

const MARK: Record<NodeState, string> = {
  waiting: '·',
  running: '▶',
  retrying: '↻',
  done: '✔',
  failed: '✖',
  blocked: '⊘',
};

/**
 * A live task list redrawn in place: per node waiting, running (with its elapsed time), retrying,
 * done, failed or blocked, with tokens; below, the run's tokens and cost so far. `nodes` are shown
 * as waiting from the start; others appear as they start, a crew's inside a flow step as
 * `<step>/<node>` (its events have another run id than `rootId`). `now` reads the clock for elapsed times.
 */
export function liveProgress(
  out: TextOut,
  nodes: readonly string[],
  rootId: string,
  now: () => number = Date.now,
): Progress {
  const draw = createLogUpdate(out as NodeJS.WriteStream, { showCursor: true });
  const lines = new Map<string, NodeLine>();
  const line = (id: string): NodeLine => {
    let found = lines.get(id);
    if (found === undefined) {
      found = {
        id,
        state: 'waiting',
        agent: '',
        attempt: 0,
        startedAt: 0,
        durationMs: 0,
        tokens: 0,
        note: '',
      };
      lines.set(id, found);
    }
    return found;
  };
  for (const id of nodes) line(id);
  const totals = { tokens: 0, costUsd: 0, calls: 0 };
  let status = 'running';
  const render = () => {
    const width = Math.max(...[...lines.keys()].map((id) => id.length), 4);
    const rows = [...lines.values()].map((l) => {
      const time =
        l.state === 'running'
          ? `${seconds(now() - l.startedAt)} s`
          : l.state === 'waiting' || l.state === 'blocked'
            ? ''
            : `${seconds(l.durationMs)} s`;
      const retry = l.attempt > 1 ? ` attempt ${l.attempt}` : '';
      const tokens = l.tokens > 0 ? ` ${l.tokens} tok` : '';
      const note = l.note === '' ? '' : `  ${l.note}`;
      return `${MARK[l.state]} ${l.id.padEnd(width)}  ${l.state.padEnd(8)} ${time.padStart(7)}${retry}${tokens}${note}`;
    });
    const cost = totals.costUsd > 0 ? ` · $${totals.costUsd.toFixed(4)}` : '';
    rows.push('', `${status} · ${totals.calls} model calls · ${totals.tokens} tokens${cost}`);
    return rows.join('\n');
  };
  const redraw = () => draw(render());
  const timer = setInterval(redraw, 100);
  timer.unref();
  redraw();
  /** A node's line: a crew's inside a flow step is named with its step. */
  const of = (event: StatecrewEvent & { nodeId: string }) =>
    line(event.step !== undefined && event.runId !== rootId ? `${event.step}/${event.nodeId}` : event.nodeId);
  return {
    event(event) {
      switch (event.type) {
        case 'node.started': {
          const l = of(event);
          Object.assign(l, { state: 'running', agent: event.agent, attempt: event.attempt, note: '' });
          if (event.attempt === 1) l.startedAt = event.at;
          break;
        }
        case 'node.completed':
          Object.assign(of(event), { state: 'done', durationMs: event.durationMs, note: '' });
          break;
        case 'node.failed':
          Object.assign(of(event), {
            state: event.willRetry ? 'retrying' : 'failed',
            durationMs: event.durationMs,
            note: event.error.split('\n')[0] ?? '',
          });
          break;
        case 'node.blocked':
          Object.assign(of(event), { state: 'blocked', note: `by ${event.reason}` });
          break;
        case 'model.call':
          of(event).tokens += event.usage.totalTokens;
          totals.tokens += event.usage.totalTokens;
          totals.calls += event.usage.calls;
          totals.costUsd += event.usage.costUsd ?? 0;
          break;
        case 'manager.call':
        case 'judge.verdict':
          totals.tokens += event.usage.totalTokens;
          totals.calls += event.usage.calls;
          totals.costUsd += event.usage.costUsd ?? 0;
          break;
        case 'flow.paused':
          status = `paused: waiting for ${event.waiting.join(', ')}`;
          break;
        case 'run.completed':
          if (event.step === undefined) status = event.status;
          break;
        case 'run.failed':
          if (event.step === undefined) status = `failed: ${event.error}`;
          break;
        default:
          return;
      }
      redraw();
    },
    end() {
      // The last list is written whole, below nothing to redraw: what stays on the terminal, and in a log.
      clearInterval(timer);
      draw.clear();
      out.write(`${render()}\n`);
    },
  };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
