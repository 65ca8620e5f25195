import type { TimelineEntry, ViewEdge, ViewNode, ViewRun, ViewStatus } from './model.js';

/** Whether a node got to run (or is running, or waits for a human). */
export function ran(node: ViewNode): boolean {
  return node.runs.length > 0 || ['completed', 'failed', 'running', 'paused'].includes(node.status);
}

/** Copies the latest run's details onto its node, which shows them, and takes its status. */
export function showLatest(node: ViewNode): void {
  const latest = node.runs.at(-1);
  if (latest === undefined) return;
  const { id: _id, iteration: _iteration, ...details } = latest;
  Object.assign(node, details);
}

/**
 * Marks the edges the run went along: from a completed node to one that ran. An edge back to a loop's
 * first task counts only when a second iteration ran.
 */
export function markTaken(nodes: readonly ViewNode[], edges: ViewEdge[]): void {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  for (const edge of edges) {
    const from = byId.get(edge.from);
    const to = byId.get(edge.to);
    if (from === undefined || to === undefined) continue;
    edge.taken =
      edge.back === true
        ? to.runs.some((r) => (r.iteration ?? 1) > 1)
        : from.status === 'completed' && ran(to);
  }
}

/** The earliest start among the nodes' runs. */
export function firstStart(nodes: readonly ViewNode[]): number | undefined {
  const starts = nodes.flatMap((n) =>
    n.runs.flatMap((r) => (r.startedAt === undefined ? [] : [r.startedAt])),
  );
  return starts.length === 0 ? undefined : Math.min(...starts);
}

function runEntry(node: ViewNode, run: ViewRun, origin: number, now: number | undefined): TimelineEntry {
  const startedAt = run.startedAt ?? origin;
  const durationMs =
    run.durationMs ?? (run.status === 'running' && now !== undefined ? Math.max(0, now - startedAt) : 0);
  const entry: TimelineEntry = {
    node: node.id,
    run: run.id,
    label: node.runs.length > 1 ? `${node.label} #${run.iteration ?? 1}` : node.label,
    kind: 'run',
    status: run.status,
    startMs: startedAt - origin,
    durationMs,
  };
  if (run.attempts !== undefined) entry.attempts = run.attempts;
  if (run.retries !== undefined) entry.retries = run.retries;
  if (run.attemptSpans !== undefined && run.attemptSpans.length > 0) {
    entry.spans = run.attemptSpans.map((s) => ({
      startMs: s.startedAt - origin,
      durationMs: s.durationMs,
      ok: s.ok,
    }));
  }
  return entry;
}

/**
 * A human or wait step's wait, as a bar from the pause, `durationMs` long (to the answer, signal or
 * timeout, or to the run's end).
 */
export function waitEntry(
  node: ViewNode,
  origin: number,
  waitingSince: number,
  durationMs: number,
  status: ViewStatus,
): TimelineEntry {
  const waitingFor = node.kind === 'wait' ? 'event' : 'human';
  return {
    node: node.id,
    run: node.id,
    label: `${node.label} (${waitingFor})`,
    kind: 'wait',
    waitingFor,
    status,
    startMs: waitingSince - origin,
    durationMs,
  };
}

/** A bar per timed node run, in start order; `now` ends the bars of runs still going. */
export function timelineOf(
  nodes: readonly ViewNode[],
  origin: number | undefined,
  now?: number,
): TimelineEntry[] {
  const start = origin ?? firstStart(nodes);
  if (start === undefined) return [];
  // Runs that started in the same millisecond keep the order they ran in: by iteration, then node.
  const entries = nodes.flatMap((node, index) =>
    node.runs
      .filter((r) => r.startedAt !== undefined)
      .map((run) => ({ entry: runEntry(node, run, start, now), iteration: run.iteration ?? 0, index })),
  );
  entries.sort((a, b) => a.entry.startMs - b.entry.startMs || a.iteration - b.iteration || a.index - b.index);
  return entries.map((e) => e.entry);
}
