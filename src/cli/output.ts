import { isStatecrewError } from '../errors.js';

/** What a command writes to: its output and its diagnostics, and whether the output is a terminal. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number; rows?: number };
  stderr: { write(text: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
}

/** How the CLI's own errors may start (`statecrew: `, `statecrew show: `): the prefix printed once. */
const OWN_PREFIX =
  /^statecrew(?: (?:run|resume|fork|signal|show|history|runs|plot|paths|runner|worker|serve|test|eval))?: /;

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
