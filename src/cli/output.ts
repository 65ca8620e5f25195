import { StatecrewError } from '../errors.js';
import type { CrewOutput } from '../types.js';

/** What a command writes to: its output and its diagnostics, and whether the output is a terminal. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number; rows?: number };
  stderr: { write(text: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
}

/** An error as one line (its message ends with its code); the stack too with `--verbose`. */
export function errorLine(error: unknown, verbose: boolean): string {
  const message = error instanceof Error ? error.message : String(error);
  const known = error instanceof StatecrewError || /\([a-z_]+\)$/.test(message);
  const line = `statecrew: ${message}${known ? '' : ' (unexpected_error)'}`;
  if (!verbose || !(error instanceof Error) || error.stack === undefined) return `${line}\n`;
  return `${line}\n${error.stack}\n`;
}

/** A crew's result as plain data (no `outputOf`), for `--json`. */
export function crewJson(out: CrewOutput): string {
  const { outputOf: _outputOf, ...data } = out;
  return `${JSON.stringify(data, null, 2)}\n`;
}

/** A crew's result for people: status, counts, usage and the final text. */
export function crewText(out: CrewOutput): string {
  const { usage } = out;
  const cost = usage.costUsd === undefined ? '' : `, $${usage.costUsd.toFixed(4)}`;
  const lines = [
    `${out.status}: ${out.summary.split('\n')[0]} (${(out.totalTimeMs / 1000).toFixed(1)} s, ${usage.calls} model calls, ${usage.totalTokens} tokens${cost})`,
    `run ${out.metadata.executionId}`,
  ];
  for (const [node, error] of Object.entries(out.errors)) lines.push(`  ${node}: ${error}`);
  if (out.raw !== '') lines.push('', out.raw);
  return `${lines.join('\n')}\n`;
}
