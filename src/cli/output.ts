import { isStatecrewError } from '../errors.js';
import type { CrewOutput } from '../types.js';

/** What a command writes to: its output and its diagnostics, and whether the output is a terminal. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number; rows?: number };
  stderr: { write(text: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
}

/** How the CLI's own errors may start (`statecrew: `, `statecrew show: `): the prefix printed once. */
const OWN_PREFIX = /^statecrew(?: (?:run|resume|signal|show|runs|plot|paths|runner|worker|serve))?: /;

/**
 * An error as one line: `statecrew: <message> (<code>)`, with a single `statecrew: ` prefix (a message
 * that already names the command, such as `statecrew show: …`, loses that part) and its line breaks
 * joined; `(unexpected_error)` when the message names no code. The stack follows with `--verbose`.
 */
export function errorLine(error: unknown, verbose: boolean): string {
  const message = oneLine(error instanceof Error ? error.message : String(error)).replace(OWN_PREFIX, '');
  const known = isStatecrewError(error) || /\([a-z_]+\)$/.test(message);
  const line = `statecrew: ${message}${known ? '' : ' (unexpected_error)'}`;
  if (!verbose || !(error instanceof Error) || error.stack === undefined) return `${line}\n`;
  return `${line}\n${error.stack}\n`;
}

/** A text on one line: its line breaks (and the blanks around them) become single spaces. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** A word as a POSIX shell reads it back: as is when plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
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
  for (const p of out.pending ?? []) {
    const what =
      p.kind === 'approval' ? `call ${p.callId} (${p.agent} → ${p.tool})` : 'a review of its output';
    lines.push(`  ${p.nodeId} waits for ${what}`);
  }
  if (out.pending !== undefined) lines.push('  answer with crew.resume(id, { approvals, reviews })');
  if (out.raw !== '') lines.push('', out.raw);
  return `${lines.join('\n')}\n`;
}
