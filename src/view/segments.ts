import type { RunView, TimelineEntry, ViewNode } from './model.js';
import { firstStart, markTaken } from './timeline.js';

/** Where a view's timeline starts: its run's start, else its first node run's. */
function originOf(view: RunView): number | undefined {
  return view.totals.startedAt ?? firstStart(view.nodes);
}

/** The earliest of the times given. */
function earliest(...times: (number | undefined)[]): number | undefined {
  const known = times.filter((t) => t !== undefined);
  return known.length === 0 ? undefined : Math.min(...known);
}

/** Entries on another origin: `by` ms later. */
function shifted(entries: readonly TimelineEntry[], by: number): TimelineEntry[] {
  return entries.map((entry) => {
    const moved: TimelineEntry = { ...entry, startMs: entry.startMs + by };
    if (entry.spans !== undefined)
      moved.spans = entry.spans.map((span) => ({ ...span, startMs: span.startMs + by }));
    return moved;
  });
}

/** Takes the nodes `seen` has no run of from `stored`, where they ran; the ids taken. */
function fillNodes(seen: RunView, stored: RunView): Set<string> {
  const storedById = new Map(stored.nodes.map((n) => [n.id, n]));
  const filled = new Set<string>();
  seen.nodes = seen.nodes.map((node): ViewNode => {
    const earlier = storedById.get(node.id);
    if (node.runs.length > 0 || earlier === undefined || earlier.runs.length === 0) return node;
    filled.add(node.id);
    return { ...earlier, runs: [...earlier.runs] };
  });
  return filled;
}

/** When each stored node run started, by run id: the stored state keeps the first segment's start. */
function storedStarts(stored: RunView): Map<string, number> {
  const starts = new Map<string, number>();
  for (const node of stored.nodes) {
    for (const run of node.runs) if (run.startedAt !== undefined) starts.set(run.id, run.startedAt);
  }
  return starts;
}

/** Stretches back to its stored start each run the events saw from a resume on, and its bar. */
function stretchRuns(seen: RunView, starts: ReadonlyMap<string, number>, origin: number): void {
  for (const node of seen.nodes) {
    for (const run of node.runs) {
      const began = starts.get(run.id);
      if (began === undefined || run.startedAt === undefined || began >= run.startedAt) continue;
      const more = run.startedAt - began;
      run.startedAt = began;
      if (run.durationMs !== undefined) run.durationMs += more;
      const bar = seen.timeline.find((entry) => entry.run === run.id && entry.kind === 'run');
      if (bar !== undefined)
        Object.assign(bar, { startMs: began - origin, durationMs: bar.durationMs + more });
    }
    if (node.runs.length > 0) Object.assign(node, { startedAt: node.runs.at(-1)?.startedAt });
  }
}

/**
 * A run's view from its kept events (`seen`), completed by its view from its stored state (`stored`)
 * where the events begin after the run did: a run that kept its events only from a resume on. The
 * nodes the events never saw run take their stored runs and bars, a run they saw from the resume on
 * starts (and its bar) when it first did; the timeline and the totals start when the run did (the
 * earliest of the two views' starts and `createdAt`, when given), and the totals spend what the
 * stored state says when it says more.
 */
export function withEarlierSegments(seen: RunView, stored: RunView, createdAt?: number): RunView {
  const filled = fillNodes(seen, stored);
  const seenOrigin = originOf(seen);
  const starts = storedStarts(stored);
  const firstStored = earliest(...starts.values());
  const late =
    filled.size > 0 || (firstStored !== undefined && seenOrigin !== undefined && firstStored < seenOrigin);
  if (!late) return seen;
  const storedOrigin = originOf(stored);
  const origin = earliest(seenOrigin, storedOrigin, firstStored, createdAt);
  if (origin === undefined) return seen;
  const storedBars = stored.timeline.filter((entry) => filled.has(entry.node));
  seen.timeline = [
    ...shifted(storedBars, (storedOrigin ?? origin) - origin),
    ...shifted(seen.timeline, (seenOrigin ?? origin) - origin),
  ];
  stretchRuns(seen, starts, origin);
  seen.timeline.sort((a, b) => a.startMs - b.startMs);
  const timeMs = seen.totals.timeMs;
  seen.totals = { ...seen.totals, startedAt: origin };
  if (timeMs !== undefined) seen.totals.timeMs = (seenOrigin ?? origin) + timeMs - origin;
  if (stored.totals.usage.calls > seen.totals.usage.calls) {
    seen.totals.usage = stored.totals.usage;
    if (stored.totals.agents !== undefined) seen.totals.agents = stored.totals.agents;
    if (stored.totals.costUsd !== undefined) seen.totals.costUsd = stored.totals.costUsd;
  }
  markTaken(
    seen.nodes,
    seen.edges.filter((edge) => filled.has(edge.from)),
  );
  return seen;
}
