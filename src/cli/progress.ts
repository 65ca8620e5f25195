import { createLogUpdate } from 'log-update';
import type { StatecrewEvent } from '../types.js';
import { warningLine } from './cli-words.js';
import { clipLine, fitCell, textWidth } from './fit.js';
import { MapProgress, mapProgressText } from './map-progress.js';
import { waitingForText } from './waiting-text.js';

type EventOf<T extends StatecrewEvent['type']> = Extract<StatecrewEvent, { type: T }>;

/** Where a run's events are shown while it runs. */
export interface Progress {
  event(event: StatecrewEvent): void;
  /** The run ended: the last frame stays; `aborted` says why, when the run was aborted (Ctrl-C, SIGTERM). */
  end(aborted?: string): void;
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
 * a crew inside a flow step (run ids other than `rootId`) start with `[<step>]`. A map step's items
 * are counted, not listed: a line each tenth of its items (`summaries: 37/100 done, 2 failed`), one
 * per failed item; the events of its items' child runs print nothing.
 */
export function plainProgress(out: TextOut, rootId: string): Progress {
  const maps = new MapProgress(rootId);
  return {
    event(event) {
      if (maps.isItemEvent(event)) return;
      const line = event.type === 'flow.item' ? maps.line(event) : plainLine(event);
      if (line !== undefined) out.write(`${prefix(event, rootId)}${line}\n`);
    },
    end() {},
  };
}

/** An epoch ms time as people read it in a log: ISO 8601, UTC. */
const isoOf = (ms: number) => new Date(ms).toISOString();

/** What a pause waits for: each step, with the event it waits for and when it times out, when it says. */
function waitingText(event: Extract<StatecrewEvent, { type: 'flow.paused' }>): string {
  const details = new Map((event.waitingFor ?? []).map((w) => [w.step, w]));
  const steps = event.waiting.map((step) => {
    const wait = details.get(step);
    const parts = [
      ...(wait?.event === undefined ? [] : [`event ${wait.event}`]),
      ...(wait?.timeoutAt === undefined ? [] : [`times out at ${isoOf(wait.timeoutAt)}`]),
    ];
    return parts.length === 0 ? step : `${step} (${parts.join(', ')})`;
  });
  return `paused: waiting for ${steps.join(', ')}`;
}

/** The line of a flow's own event: a pause, an answer, a signal, a timeout, a sleep, a handled failure. */
function flowLine(event: StatecrewEvent): string | undefined {
  switch (event.type) {
    case 'flow.paused':
      return waitingText(event);
    case 'flow.resumed':
      return `resumed: ${event.step} answered ${event.route}`;
    case 'flow.signaled':
      return `signaled: ${event.step} got event ${event.event}`;
    case 'flow.timed_out':
      return `timed out: ${event.step} waited past its deadline`;
    case 'flow.sleeping':
      return `${event.nodeId} sleeping until ${isoOf(event.wakeAt)}`;
    case 'flow.step':
      return event.status === 'failed' && event.handled === true
        ? `${event.nodeId} failure handled: the flow goes on`
        : undefined;
    default:
      return undefined;
  }
}

/** The line of a hand-over between agents: asked, or answered (a manager's allocation has none). */
function delegationLine(event: StatecrewEvent): string | undefined {
  if (event.type === 'delegation' && event.kind !== 'allocate')
    return `${event.nodeId}: ${event.from} ${event.kind === 'ask' ? 'asks' : 'hands work to'} ${event.to}: ${clipLine(event.task.split('\n')[0] ?? '', 80)}`;
  if (event.type === 'delegation.replied')
    return event.error === undefined
      ? `${event.nodeId}: ${event.to} answered ${event.from} in ${event.durationMs} ms`
      : `${event.nodeId}: ${event.to} could not answer ${event.from}: ${event.error}`;
  return undefined;
}

function plainLine(event: StatecrewEvent): string | undefined {
  switch (event.type) {
    case 'delegation':
    case 'delegation.replied':
      return delegationLine(event);
    case 'run.started':
      return `run ${event.runId} started (${event.process}, ${event.nodes} nodes)`;
    case 'run.warning':
      return warningLine(event);
    case 'node.started':
      return `${event.nodeId} started${event.agent === '' ? '' : ` by ${event.agent}`} (attempt ${event.attempt})`;
    case 'node.completed':
      return `${event.nodeId} completed in ${event.durationMs} ms`;
    case 'node.failed':
      return `${event.nodeId} failed: ${event.error}${event.willRetry ? ' (will retry)' : ''}`;
    case 'node.retrying':
      return `${event.nodeId} retrying in ${event.delayMs} ms (attempt ${event.attempt})`;
    case 'node.waiting':
      // A sleep says when it wakes in its own line (`flow.sleeping`).
      return event.waitingFor.kind === 'sleep'
        ? undefined
        : `${event.nodeId} waits for ${waitingForText(event.waitingFor)}`;
    case 'node.blocked':
      return `${event.nodeId} blocked by ${event.reason}`;
    case 'run.completed':
      return `run ${event.runId} ${event.status} in ${event.totalTimeMs} ms`;
    case 'run.failed':
      // The reason of an abort is the command's to say (on stderr, with how to go on).
      return event.code === 'aborted'
        ? `run ${event.runId} aborted`
        : `run ${event.runId} failed: ${event.error}`;
    case 'run.suspended':
      return `run ${event.runId} suspended: kept running with no owner, to be resumed`;
    default:
      return flowLine(event);
  }
}

type NodeState = 'waiting' | 'running' | 'retrying' | 'paused' | 'done' | 'failed' | 'blocked' | 'aborted';

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
  paused: '⏸',
  done: '✔',
  failed: '✖',
  blocked: '⊘',
  aborted: '■',
};

/** The columns of a row besides the node's name: mark, gaps, state, time, and room for attempt and tokens. */
const ROW_EXTRAS = 32;

/** A node's row of the live list, its name `width` columns wide, cut to the terminal's `columns`. */
function nodeRow(l: NodeLine, width: number, elapsedMs: number, columns: number | undefined): string {
  const time =
    l.state === 'running'
      ? `${seconds(elapsedMs)} s`
      : l.state === 'waiting' || l.state === 'blocked' || l.state === 'paused'
        ? ''
        : `${seconds(l.durationMs)} s`;
  const retry = l.attempt > 1 ? ` attempt ${l.attempt}` : '';
  const tokens = l.tokens > 0 ? ` ${l.tokens} tok` : '';
  const note = l.note === '' ? '' : `  ${l.note}`;
  const row = `${MARK[l.state]} ${fitCell(l.id, width)}  ${l.state.padEnd(8)} ${time.padStart(7)}${retry}${tokens}${note}`;
  return clipLine(row, columns);
}

/** The width of the node names' column: the longest name, narrowed on a small terminal. */
function nameWidth(ids: Iterable<string>, columns: number | undefined): number {
  const natural = Math.max(...[...ids].map(textWidth), 4);
  return columns === undefined || columns <= 0
    ? natural
    : Math.min(natural, Math.max(8, columns - ROW_EXTRAS));
}

/** What the live list shows — a line per node, the run's totals and status — as events change it. */
class TaskList {
  readonly #lines = new Map<string, NodeLine>();
  readonly #totals = { tokens: 0, costUsd: 0, calls: 0 };
  /** What the run warned of (`run.warning`), shown below the nodes for as long as the list is. */
  readonly #warnings: string[] = [];
  #status = 'running';

  readonly #rootId: string;
  readonly #maps: MapProgress;

  constructor(nodes: readonly string[], rootId: string) {
    this.#rootId = rootId;
    this.#maps = new MapProgress(rootId);
    for (const id of nodes) this.#line(id);
  }

  /** Applies `event`; false when it changes nothing shown. */
  apply(event: StatecrewEvent): boolean {
    // A map's items are counted on its line; what their child runs spent, in the totals.
    if (this.#maps.isItemEvent(event)) {
      if (event.type === 'model.call') this.#count(event.usage);
      return false;
    }
    switch (event.type) {
      case 'node.started':
      case 'node.completed':
      case 'node.failed':
      case 'node.blocked':
      case 'node.waiting':
        return this.#applyNode(event);
      case 'model.call':
        this.#of(event).tokens += event.usage.totalTokens;
        this.#count(event.usage);
        return true;
      case 'manager.call':
      case 'judge.verdict':
        this.#count(event.usage);
        return true;
      case 'delegation':
        if (event.kind === 'allocate') return false;
        this.#of(event).note = `${event.kind === 'ask' ? 'asking' : 'delegated to'} ${event.to}`;
        return true;
      case 'delegation.replied':
        this.#of(event).note = `${event.to} answered`;
        return true;
      case 'tool.progress':
        this.#of(event).note =
          `${event.tool} ${event.progress}${event.total === undefined ? '' : `/${event.total}`}`;
        return true;
      case 'flow.paused':
        this.#status = waitingText(event);
        return true;
      case 'run.warning':
        this.#warnings.push(warningLine(event));
        return true;
      case 'flow.sleeping':
      case 'flow.signaled':
      case 'flow.timed_out':
      case 'flow.step':
        return this.#flowNote(event);
      case 'flow.item':
        return this.#item(event);
      case 'run.completed':
        if (event.step === undefined) this.#status = event.status;
        return true;
      case 'run.failed':
        if (event.step === undefined)
          this.#status = event.code === 'aborted' ? 'aborted' : `failed: ${event.error}`;
        return true;
      case 'run.suspended':
        if (event.step === undefined) this.#status = 'suspended';
        return true;
      default:
        return false;
    }
  }

  /** Applies a node run's lifecycle event to its line. */
  #applyNode(
    event: EventOf<'node.started' | 'node.completed' | 'node.failed' | 'node.blocked' | 'node.waiting'>,
  ): boolean {
    switch (event.type) {
      case 'node.started': {
        const l = this.#of(event);
        Object.assign(l, { state: 'running', agent: event.agent, attempt: event.attempt, note: '' });
        if (event.attempt === 1) l.startedAt = event.at;
        return true;
      }
      case 'node.completed':
        Object.assign(this.#of(event), { state: 'done', durationMs: event.durationMs, note: '' });
        return true;
      case 'node.failed':
        Object.assign(this.#of(event), {
          state: event.willRetry ? 'retrying' : 'failed',
          durationMs: event.durationMs,
          note: event.error.split('\n')[0] ?? '',
        });
        return true;
      case 'node.blocked':
        Object.assign(this.#of(event), { state: 'blocked', note: `by ${event.reason}` });
        return true;
      case 'node.waiting':
        if (event.waitingFor.kind === 'sleep') return false;
        Object.assign(this.#of(event), {
          state: 'paused',
          note: `waits for ${waitingForText(event.waitingFor)}`,
        });
        return true;
    }
  }

  /** The run was aborted at `at` for `reason`: the nodes still running (or to retry) show as aborted. */
  abort(reason: string, at: number): void {
    for (const l of this.#lines.values()) {
      if (l.state === 'running') Object.assign(l, { state: 'aborted', durationMs: at - l.startedAt });
      else if (l.state === 'retrying') l.state = 'aborted';
    }
    this.#status = `aborted: ${reason}`;
  }

  /** The list as text, each row cut to the terminal's `columns` when they are known. */
  render(columns: number | undefined, now: number): string {
    const width = nameWidth(this.#lines.keys(), columns);
    const rows = [...this.#lines.values()].map((l) => nodeRow(l, width, now - l.startedAt, columns));
    const { calls, tokens, costUsd } = this.#totals;
    const cost = costUsd > 0 ? ` · $${costUsd.toFixed(4)}` : '';
    if (this.#warnings.length > 0) rows.push('', ...this.#warnings.map((w) => clipLine(w, columns)));
    rows.push('', clipLine(`${this.#status} · ${calls} model calls · ${tokens} tokens${cost}`, columns));
    return rows.join('\n');
  }

  /** A flow step's note: the sleep it sleeps, the signal or timeout that ended its wait, its handled failure. */
  #flowNote(
    event: Extract<
      StatecrewEvent,
      { type: 'flow.sleeping' | 'flow.signaled' | 'flow.timed_out' | 'flow.step' }
    >,
  ): boolean {
    if (event.type === 'flow.sleeping') {
      this.#line(event.nodeId).note = `sleeping until ${isoOf(event.wakeAt)}`;
    } else if (event.type === 'flow.signaled' || event.type === 'flow.timed_out') {
      const note = flowLine(event) ?? '';
      this.#status = `running · ${note}`;
    } else if (event.status === 'failed' && event.handled === true) {
      const line = this.#line(event.nodeId);
      line.note = `handled: ${line.note}`;
    } else {
      return false;
    }
    return true;
  }

  /**
   * A map step's line says its items' counts. Only a failed or the last item redraws at once: the
   * clock's redraw shows the rest, so a 10,000-item map does not redraw 20,000 times.
   */
  #item(event: EventOf<'flow.item'>): boolean {
    this.#maps.see(event);
    const line = this.#line(event.nodeId);
    if (line.state === 'waiting') Object.assign(line, { state: 'running', startedAt: event.at });
    const running = event.status === 'started' || event.status === 'retrying' ? ' …' : '';
    line.note = `${mapProgressText(event).slice(event.nodeId.length + 2)}${running}`;
    return event.status === 'failed' || event.done + event.failed === event.total;
  }

  #count(usage: { totalTokens: number; calls: number; costUsd?: number | undefined }): void {
    this.#totals.tokens += usage.totalTokens;
    this.#totals.calls += usage.calls;
    this.#totals.costUsd += usage.costUsd ?? 0;
  }

  /** A node's line: a crew's inside a flow step is named with its step. */
  #of(event: StatecrewEvent & { nodeId: string }): NodeLine {
    const inStep = event.step !== undefined && event.runId !== this.#rootId;
    return this.#line(inStep ? `${event.step}/${event.nodeId}` : event.nodeId);
  }

  #line(id: string): NodeLine {
    let found = this.#lines.get(id);
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
      this.#lines.set(id, found);
    }
    return found;
  }
}

/**
 * A live task list redrawn in place: per node waiting, running (with its elapsed time), retrying,
 * done, failed or blocked, with tokens; below, the run's tokens and cost so far. `nodes` are shown
 * as waiting from the start; others appear as they start, a crew's inside a flow step as
 * `<step>/<node>` (its events have another run id than `rootId`). `now` reads the clock for elapsed
 * times. Rows are cut to fit the terminal's width (`out.columns`, when known): none wraps. Ended with
 * an abort's reason, the last frame shows the nodes that were running as aborted, and the reason.
 */
export function liveProgress(
  out: TextOut,
  nodes: readonly string[],
  rootId: string,
  now: () => number = Date.now,
): Progress {
  const draw = createLogUpdate(out as NodeJS.WriteStream, { showCursor: true });
  const list = new TaskList(nodes, rootId);
  const render = () => list.render(out.columns, now());
  const redraw = () => draw(render());
  const timer = setInterval(redraw, 100);
  timer.unref();
  redraw();
  return {
    event(event) {
      if (list.apply(event)) redraw();
    },
    end(aborted) {
      // The last list is written whole, below nothing to redraw: what stays on the terminal, and in a log.
      clearInterval(timer);
      if (aborted !== undefined) list.abort(aborted, now());
      draw.clear();
      out.write(`${render()}\n`);
    },
  };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
