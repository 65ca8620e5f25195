import { classToken, escapeHtml } from './escape.js';
import { clip } from './layout.js';
import type { AgentLanes, AgentSpan, TimelineMessage } from './model.js';
import { AXIS, CHART_WIDTH, formatMs, LABEL_WIDTH, n, ticks, timeScale } from './timeline-svg.js';

const LANE = 44;
/** How far from a lane's middle an arrow stops: the edge of the lane's bars. */
const REACH = 9;

/** Where the agents' lanes end (ms since the run started): the last span's or message's end. */
export function lanesEnd(lanes: AgentLanes | undefined): number {
  if (lanes === undefined) return 0;
  const ends = [...lanes.spans, ...lanes.messages].map((s) => s.startMs + s.durationMs);
  return Math.max(0, ...ends);
}

/** What a message says, in words: who asked whom what, and how it went. */
export function describeMessage(m: TimelineMessage): string {
  const asked = `${m.from} → ${m.to}: ${m.kind === 'ask' ? 'asked' : 'delegated'} "${m.task}"`;
  const when = `at ${formatMs(m.startMs)}`;
  if (m.state === 'refused') return `${asked} ${when}, refused (${m.code ?? 'refused'})`;
  if (m.state === 'waiting') return `${asked} ${when}, waiting for a reply`;
  return `${asked} ${when}, ${m.state} after ${formatMs(m.durationMs)}`;
}

function spanSvg(span: AgentSpan, y: number, scale: (ms: number) => number): string {
  const coworker = ['replied', 'failed', 'refused', 'waiting'].includes(span.status);
  const cls = coworker ? `coworker msg-${classToken(span.status)}` : `status-${classToken(span.status)}`;
  const text = coworker
    ? `${span.agent} answering for ${span.node}: ${span.status}, from ${formatMs(span.startMs)} for ${formatMs(span.durationMs)}`
    : `${span.node} (${span.agent}): ${span.status}, from ${formatMs(span.startMs)} for ${formatMs(span.durationMs)}`;
  const x = scale(span.startMs);
  const width = Math.max(3, scale(span.startMs + span.durationMs) - x);
  return [
    `<g class="span" data-timeline-node="${escapeHtml(span.node)}" data-run="${escapeHtml(span.run)}" data-agent="${escapeHtml(span.agent)}" tabindex="0" role="button" aria-label="${escapeHtml(text)}">`,
    `<title>${escapeHtml(text)}</title>`,
    `<rect class="bar ${cls}" x="${n(x)}" y="${y + LANE / 2 - REACH + 1}" width="${n(width)}" height="${2 * REACH - 2}" rx="3"/>`,
    '</g>',
  ].join('');
}

/** A label beside a mark at `x`: to its right, or to its left near the chart's right end. */
function labelAt(x: number, y: number, text: string, max: number): string {
  const left = x > LABEL_WIDTH + CHART_WIDTH * 0.65;
  const at = left ? `x="${n(x - 8)}" text-anchor="end"` : `x="${n(x + 8)}"`;
  return `<text class="message-label" ${at} y="${n(y)}">${escapeHtml(clip(text, max))}</text>`;
}

/** An arrow from `(x, y1)` to `(x, y2)`, its head at `y2`. */
function arrow(x: number, y1: number, y2: number, cls: string): string {
  const down = y2 > y1 ? 1 : -1;
  const head = `${n(x - 4)},${n(y2 - 7 * down)} ${n(x + 4)},${n(y2 - 7 * down)} ${n(x)},${n(y2)}`;
  return `<line class="${cls}" x1="${n(x)}" x2="${n(x)}" y1="${n(y1)}" y2="${n(y2 - 6 * down)}"/><polygon class="${cls}-head" points="${head}"/>`;
}

/** A message: an arrow from the asking agent's lane to the coworker's, the reply's dashed arrow back; a refusal a cross. */
function messageSvg(
  m: TimelineMessage,
  middleOf: (agent: string) => number | undefined,
  scale: (ms: number) => number,
) {
  const text = describeMessage(m);
  const from = middleOf(m.from) ?? AXIS + LANE / 2;
  const to = middleOf(m.to);
  const x = scale(m.startMs);
  const parts = [
    `<g class="message msg-${classToken(m.state)}" data-timeline-node="${escapeHtml(m.node)}" data-run="${escapeHtml(m.run)}" data-message="${m.index}"`,
    ` data-from="${escapeHtml(m.from)}" data-to="${escapeHtml(m.to)}" tabindex="0" role="button" aria-label="${escapeHtml(text)}">`,
    `<title>${escapeHtml(text)}</title>`,
  ];
  if (m.state === 'refused' || to === undefined || to === from) {
    parts.push(
      `<path class="refusal" d="M${n(x - 5)},${n(from - 5)} L${n(x + 5)},${n(from + 5)} M${n(x - 5)},${n(from + 5)} L${n(x + 5)},${n(from - 5)}"/>`,
      labelAt(x, from - 10, `${m.to}: ${m.code ?? m.state}`, 36),
      '</g>',
    );
    return parts.join('');
  }
  const toward = to > from ? -1 : 1;
  // From the edge of one lane's bars to the edge of the other's, so the arrows never hide a bar.
  parts.push(arrow(x, from - toward * REACH, to + toward * REACH, 'ask'));
  if (m.state !== 'waiting') {
    parts.push(arrow(scale(m.startMs + m.durationMs), to + toward * REACH, from - toward * REACH, 'reply'));
  }
  const label = `${m.kind === 'ask' ? 'asks' : 'delegates'}: ${m.task === '' ? '…' : m.task}`;
  parts.push(labelAt(x, (from + to) / 2 + 4, label, 40), '</g>');
  return parts.join('');
}

/**
 * The agents' lanes as inline SVG, on the timeline's scale (ending at `end`): a lane per agent with
 * its task runs and its answers to coworkers as bars, and each message an arrow from the asking
 * agent's lane to the coworker's at the time it was asked, the reply a dashed arrow back when it came
 * (a refused call: a cross in the asking agent's lane). Bars and messages carry `data-timeline-node`
 * (and messages `data-message`, their index in the run) for the page's script. Every text is escaped.
 */
export function lanesSvg(lanes: AgentLanes, end: number): string {
  const scale = timeScale(end);
  const height = AXIS + lanes.agents.length * LANE + 4;
  const width = LABEL_WIDTH + CHART_WIDTH + 8;
  const top = new Map(lanes.agents.map((agent, i) => [agent, AXIS + i * LANE]));
  const middleOf = (agent: string) => {
    const y = top.get(agent);
    return y === undefined ? undefined : y + LANE / 2;
  };
  const rows = lanes.agents.map((agent, i) => {
    const y = AXIS + i * LANE;
    return [
      `<g class="lane" data-agent="${escapeHtml(agent)}"><title>${escapeHtml(agent)}</title>`,
      `<line class="lane-line" x1="${LABEL_WIDTH}" x2="${width}" y1="${y + LANE / 2}" y2="${y + LANE / 2}"/>`,
      `<text class="row-label" x="${LABEL_WIDTH - 8}" y="${y + LANE / 2 + 4}" text-anchor="end">${escapeHtml(clip(agent, 26))}</text>`,
      '</g>',
    ].join('');
  });
  const spans = lanes.spans.map((span) => spanSvg(span, top.get(span.agent) ?? AXIS, scale));
  return [
    `<svg class="lanes" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="group" aria-label="Agents and their messages">`,
    ticks(end, scale, height),
    ...rows,
    ...spans,
    ...lanes.messages.map((m) => messageSvg(m, middleOf, scale)),
    '</svg>',
  ].join('');
}
