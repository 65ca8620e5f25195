import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The time limit of a CLI test. Each `statecrew` process it starts spends about a second of CPU
 * loading the package (and tsx, for a `.ts` module), and a test runs up to a dozen of them one after
 * another, each on the state the one before left: about 10 s on a quiet 2-core machine. At load 12 a
 * process gets a sixth of a core there, so the same test needs about 90 s.
 */
export const CLI_TIMEOUT = 120_000;

/** The built command, as `npx statecrew` runs it. */
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** A fixture of the CLI tests, by file name. */
export const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/cli/${name}`, import.meta.url));

/** What a finished command printed and its exit code. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A started command: its process, what it printed so far, and its end. */
export interface Running {
  child: ChildProcess;
  output(): string;
  /** Resolves once stdout holds `text`. */
  whenPrinted(text: string): Promise<void>;
  done: Promise<Ran>;
}

/** Starts `statecrew <args>` in a child process, in `cwd`, with `env` added to the environment. */
export function start(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Running {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, FORCE_TTY: '', NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiting: { text: string; resolve: () => void }[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const w of waiting.filter((w) => stdout.includes(w.text))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve();
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<Ran>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return {
    child,
    output: () => stdout,
    whenPrinted: (text) =>
      stdout.includes(text) ? Promise.resolve() : new Promise((resolve) => waiting.push({ text, resolve })),
    done,
  };
}

/** Runs `statecrew <args>` to its end. */
export function cli(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Ran> {
  return start(args, options).done;
}
