import type { CrewOutput } from '../../types.js';
import { crewAnswerCommands } from '../answers.js';

/** A crew's result as plain data (no `outputOf`), for `--json`. */
export function crewJson(out: CrewOutput): string {
  const { outputOf: _outputOf, ...data } = out;
  return `${JSON.stringify(data, null, 2)}\n`;
}

/**
 * A crew's result for people: status, counts, usage and the final text; for a paused run, what each
 * node waits for and the exact `statecrew resume` commands that answer it (`resumeArgs`: the options
 * the command needs besides the id and the answer, such as `--store`).
 */
export function crewText(out: CrewOutput, resumeArgs: readonly string[] = []): string {
  const { usage } = out;
  const cost = usage.costUsd === undefined ? '' : `, $${usage.costUsd.toFixed(4)}`;
  const id = out.metadata.executionId;
  const lines = [
    `${out.status}: ${out.summary.split('\n')[0]} (${(out.totalTimeMs / 1000).toFixed(1)} s, ${usage.calls} model calls, ${usage.totalTokens} tokens${cost})`,
    `run ${id}`,
  ];
  for (const [node, error] of Object.entries(out.errors)) lines.push(`  ${node}: ${error}`);
  lines.push(...crewAnswerCommands(id, out.pending ?? [], resumeArgs));
  if (out.raw !== '') lines.push('', out.raw);
  return `${lines.join('\n')}\n`;
}
