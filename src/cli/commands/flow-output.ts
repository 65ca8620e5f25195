import { leafWaits, PATH_SEPARATOR, type PendingCrew, type PendingStep } from '../../machines/flow/waits.js';
import type { FlowOutput } from '../../runtime/flow/flow-output.js';
import { crewAnswerCommands } from '../answers.js';
import { shellWord } from '../output.js';

/** A flow's result as JSON, for `--json`. */
export function flowJson(out: FlowOutput<object>): string {
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** When a waiting step times out, for people: ` (times out at <ISO time>)`, or nothing. */
function deadlineText(p: PendingStep): string {
  return p.timeoutAt === undefined ? '' : ` (times out at ${new Date(p.timeoutAt).toISOString()})`;
}

/** What the crew of a step waits for, in a few words (for a Markdown report's line). */
export function crewWaitText(p: PendingCrew): string {
  const items = p.pending.map((w) =>
    w.kind === 'approval' ? `call ${w.callId} (${w.agent} → ${w.tool})` : `the review of ${w.nodeId}`,
  );
  return `crew "${p.crew}" (run ${p.executionId}) waits for ${items.join(', ')}`;
}

/**
 * What a paused run's waiting steps wait for, and the exact command that answers or signals each
 * (`resumeArgs`: the options `statecrew resume <id>` needs besides the id and the answer, such as
 * `--store`): a human step's `--route`, a wait step's `statecrew signal`, a step's crew's approvals
 * and reviews. A child flow's waits are listed by path, each answered through this run (`named`:
 * always with `--step`).
 */
export function resumeHint(
  id: string,
  pending: readonly PendingStep[],
  resumeArgs: readonly string[] = [],
  named = false,
): string[] {
  const resume = ['statecrew resume', shellWord(id), ...resumeArgs.map(shellWord)].join(' ');
  const rest = resumeArgs.map((arg) => ` ${shellWord(arg)}`).join('');
  return pending.flatMap((p) => {
    if (p.kind === 'event') {
      return [
        `  ${p.step} waits for event "${p.event}"${deadlineText(p)}`,
        `  signal it with: statecrew signal ${shellWord(id)} ${shellWord(p.event)}${rest} [--payload <json>]`,
      ];
    }
    if (p.kind === 'flow') {
      // The innermost waits, each named by its path (`review › approve`) and answered through this run.
      const leaves = leafWaits([p]).map((l) => ({ ...l.wait, step: l.path.join(PATH_SEPARATOR) }));
      return [
        `  ${p.step}: flow "${p.flow}" (run ${p.runId}) waits at ${p.path}`,
        ...resumeHint(id, leaves, resumeArgs, true),
      ];
    }
    if (p.kind === 'crew') {
      return [
        `  ${p.step}: crew "${p.crew}" (run ${p.executionId}) waits`,
        ...crewAnswerCommands(id, p.pending, resumeArgs, '    '),
      ];
    }
    const step = pending.length > 1 || named ? ` --step ${shellWord(p.step)}` : '';
    return [
      `  ${p.step} asks: ${p.prompt}${deadlineText(p)}`,
      `  answer with: ${resume}${step} --route <${p.routes.join(' | ')}> [--feedback <text>]`,
    ];
  });
}

/**
 * A flow's result for people: status, trail, errors (handled ones marked), what a paused run waits for
 * and how to answer it (`resumeArgs` as for {@link resumeHint}), the output.
 */
export function flowText(out: FlowOutput<object>, resumeArgs: readonly string[] = []): string {
  const lines = [
    `${out.status}: ${out.trail.join(' → ') || '(no step ran)'} (${(out.totalTimeMs / 1000).toFixed(1)} s)`,
    `run ${out.id}`,
  ];
  for (const [step, error] of Object.entries(out.errors)) {
    const handled = out.failures[step]?.handled === true ? ' (handled: the flow went on)' : '';
    lines.push(`  ${step}: ${error}${handled}`);
  }
  if (out.status === 'paused') {
    const pending = out.waiting ?? (out.pending === undefined ? [] : [out.pending]);
    lines.push(...resumeHint(out.id, pending, resumeArgs));
  } else if (out.output !== undefined) {
    lines.push('', typeof out.output === 'string' ? out.output : JSON.stringify(out.output, null, 2));
  }
  return `${lines.join('\n')}\n`;
}
