import { classToken, escapeHtml } from './escape.js';
import { clip } from './layout.js';
import type { TimelineEntry } from './model.js';

const ROW = 24;
/** The label column, the chart's width and the axis' height, shared with the agents' lanes. */
export const LABEL_WIDTH = 180;
export const CHART_WIDTH = 880;
export const AXIS = 26;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A duration as people read it: `850 ms`, `1.4 s`, `2 min 5 s`, `3 h 20 min`, `2 d 4 h`. */
export function formatMs(ms: number): string {
  if (ms < 10 && !Number.isInteger(ms)) return `${Number(ms.toFixed(2))} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const two = (big: number, bigUnit: string, small: number, smallUnit: string) => {
    const smalls = Math.round(ms / small);
    const whole = Math.floor(smalls / (big / small));
    const rest = smalls - whole * (big / small);
    return rest === 0 ? `${whole} ${bigUnit}` : `${whole} ${bigUnit} ${rest} ${smallUnit}`;
  };
  if (ms < HOUR) return two(60_000, 'min', 1000, 's');
  if (ms < DAY) return two(HOUR, 'h', 60_000, 'min');
  return two(DAY, 'd', HOUR, 'h');
}

export const n = (value: number) => Math.round(value * 10) / 10;

/** Where a timeline ends (ms since the run started): the run's time, or the last bar's end if later. */
export function timelineEnd(entries: readonly TimelineEntry[], totalMs: number | undefined): number {
  return Math.max(1, totalMs ?? 0, ...entries.map((e) => e.startMs + e.durationMs));
}

/** The x of a time (ms since the run started) on a timeline ending at `end`. */
export function timeScale(end: number): (ms: number) => number {
  return (ms) => LABEL_WIDTH + (Math.min(ms, end) / end) * CHART_WIDTH;
}

function describe(entry: TimelineEntry): string {
  const waited = entry.waitingFor === 'event' ? 'waited for an event' : 'waited for a human';
  const parts = [`${entry.label}: ${entry.kind === 'wait' ? waited : entry.status}`];
  parts.push(`from ${formatMs(entry.startMs)}`, `for ${formatMs(entry.durationMs)}`);
  if (entry.retries !== undefined && entry.retries > 0) {
    parts.push(`${entry.retries} ${entry.retries === 1 ? 'retry' : 'retries'}`);
  }
  return parts.join(', ');
}

function bars(entry: TimelineEntry, y: number, scale: (ms: number) => number): string {
  const kind = entry.kind === 'wait' ? 'wait' : `status-${classToken(entry.status)}`;
  const spans = entry.spans ?? [
    { startMs: entry.startMs, durationMs: entry.durationMs, ok: entry.status !== 'failed' },
  ];
  const parts: string[] = [];
  spans.forEach((span, i) => {
    const next = spans[i + 1];
    if (next !== undefined) {
      const from = scale(span.startMs + span.durationMs);
      parts.push(
        `<line class="backoff" x1="${n(from)}" x2="${n(scale(next.startMs))}" y1="${y + ROW / 2}" y2="${y + ROW / 2}"/>`,
      );
    }
    const x = scale(span.startMs);
    const width = Math.max(3, scale(span.startMs + span.durationMs) - x);
    const cls = span.ok ? kind : 'status-failed attempt-failed';
    parts.push(
      `<rect class="bar ${cls}" x="${n(x)}" y="${y + 5}" width="${n(width)}" height="${ROW - 10}" rx="3"/>`,
    );
  });
  return parts.join('');
}

/** The time axis: five ticks with their times, and their lines down to `height`. */
export function ticks(total: number, scale: (ms: number) => number, height: number): string {
  const parts: string[] = [];
  for (let i = 0; i <= 4; i += 1) {
    const ms = (total * i) / 4;
    const x = n(scale(ms));
    parts.push(
      `<line class="tick" x1="${x}" x2="${x}" y1="${AXIS - 6}" y2="${height}"/>`,
      `<text class="tick-label" x="${x}" y="${AXIS - 10}" text-anchor="${i === 0 ? 'start' : i === 4 ? 'end' : 'middle'}">${formatMs(ms)}</text>`,
    );
  }
  return parts.join('');
}

/**
 * The timeline as inline SVG: a row per node run (and per human wait), its bar placed by start and
 * duration since the run started; a run retried shows each attempt, failed ones red, with the backoff
 * between them dashed. Rows carry `data-timeline-node` for the page's script.
 */
export function timelineSvg(entries: readonly TimelineEntry[], totalMs: number | undefined): string {
  if (entries.length === 0) {
    return '<p class="empty">No timed runs to show: a definition, or a run stored without timings.</p>';
  }
  const end = timelineEnd(entries, totalMs);
  const scale = timeScale(end);
  const height = AXIS + entries.length * ROW + 4;
  const rows = entries.map((entry, i) => {
    const y = AXIS + i * ROW;
    const text = describe(entry);
    return [
      `<g class="row" data-timeline-node="${escapeHtml(entry.node)}" data-run="${escapeHtml(entry.run)}" tabindex="0" role="button" aria-label="${escapeHtml(text)}">`,
      `<title>${escapeHtml(text)}</title>`,
      `<rect class="row-bg" x="0" y="${y}" width="${LABEL_WIDTH + CHART_WIDTH + 8}" height="${ROW}"/>`,
      `<text class="row-label" x="${LABEL_WIDTH - 8}" y="${y + 16}" text-anchor="end">${escapeHtml(clip(entry.label, 26))}</text>`,
      bars(entry, y, scale),
      '</g>',
    ].join('');
  });
  const width = LABEL_WIDTH + CHART_WIDTH + 8;
  return [
    `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="group" aria-label="Timeline">`,
    ticks(end, scale, height),
    ...rows,
    '</svg>',
  ].join('');
}
