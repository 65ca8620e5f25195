import type { PendingCrew, PendingStep } from '../../machines/flow/waits.js';
import type { FlowOutput } from '../../runtime/flow/flow-output.js';

/** A flow's result as JSON, for `--json`. */
export function flowJson(out: FlowOutput<object>): string {
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** When a waiting step times out, for people: ` (times out at <ISO time>)`, or nothing. */
function deadlineText(p: PendingStep): string {
  return p.timeoutAt === undefined ? '' : ` (times out at ${new Date(p.timeoutAt).toISOString()})`;
}

/** What the crew of a step waits for, and how to answer it: from code (`flow.resume`). */
export function crewWaitText(p: PendingCrew): string {
  const items = p.pending.map((w) =>
    w.kind === 'approval' ? `call ${w.callId} (${w.agent} → ${w.tool})` : `the review of ${w.nodeId}`,
  );
  return `crew "${p.crew}" (run ${p.executionId}) waits for ${items.join(', ')}; answer with flow.resume(id, { approvals, reviews })`;
}

/** What a paused run's waiting steps wait for, and how to answer or signal each from the command line. */
export function resumeHint(id: string, pending: readonly PendingStep[]): string[] {
  return pending.map((p) => {
    if (p.kind === 'event') {
      return `  ${p.step} waits for event "${p.event}"${deadlineText(p)}\n  signal it with: statecrew signal ${id} ${p.event} [--payload <json>]`;
    }
    if (p.kind === 'crew') return `  ${p.step}: ${crewWaitText(p)}`;
    const step = pending.length > 1 ? ` --step ${p.step}` : '';
    return `  ${p.step} asks: ${p.prompt}${deadlineText(p)}\n  answer with: statecrew resume ${id}${step} --route <${p.routes.join(' | ')}> [--feedback <text>]`;
  });
}

/** A flow's result for people: status, trail, errors (handled ones marked), what a paused run waits for, the output. */
export function flowText(out: FlowOutput<object>): string {
  const lines = [
    `${out.status}: ${out.trail.join(' → ') || '(no step ran)'} (${(out.totalTimeMs / 1000).toFixed(1)} s)`,
    `run ${out.id}`,
  ];
  for (const [step, error] of Object.entries(out.errors)) {
    const handled = out.failures[step]?.handled === true ? ' (handled: the flow went on)' : '';
    lines.push(`  ${step}: ${error}${handled}`);
  }
  if (out.status === 'paused') {
    lines.push(...resumeHint(out.id, out.waiting ?? (out.pending === undefined ? [] : [out.pending])));
  } else if (out.output !== undefined) {
    lines.push('', typeof out.output === 'string' ? out.output : JSON.stringify(out.output, null, 2));
  }
  return `${lines.join('\n')}\n`;
}
