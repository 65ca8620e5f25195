import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, CLI_TIMEOUT, cli, fixture } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-closed-pipe-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('statecrew run piped into a reader that stops reading (as `| head -1`)', {
  timeout: CLI_TIMEOUT,
}, () => {
  it('goes on to the end of the run and keeps it, without crashing on EPIPE', async () => {
    const store = `sqlite:${join(cwd, 'runs.db')}`;
    const child = spawn(
      process.execPath,
      [CLI, 'run', fixture('crew.ts'), '--input', 'topic=pipes', '--store', store],
      {
        cwd,
        env: { ...process.env, FORCE_TTY: '', NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Read the first line, then close the pipe's reading end, as `head -1` does.
    const firstLine = await new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('\n')) resolve(seen.split('\n')[0] ?? '');
      });
      child.once('exit', (code) => reject(new Error(`exited ${code} before a line: ${stderr}`)));
    });
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const id = /run ([0-9a-f-]{36}) started/.exec(firstLine)?.[1];
    expect(id, firstLine).toBeDefined();
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
    const shown = await cli(['show', id ?? '', '--store', store, '--json'], { cwd });
    expect(JSON.parse(shown.stdout)).toMatchObject({ status: 'completed' });
  });
});
