import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/index.js';
import { CLI, CLI_TIMEOUT, cli, fixture, start } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-errors-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const store = `sqlite:${join(cwd, 'runs.db')}`;

describe('statecrew: Ctrl-C, errors and help', { timeout: CLI_TIMEOUT }, () => {
  it('aborts cleanly on Ctrl-C: the run is kept as aborted and resume goes on where it stopped', async () => {
    const running = start(['run', fixture('crew.ts'), '--input', 'topic=AI', '--store', store], {
      cwd,
      env: { HANG_AT: 'write' },
    });
    await running.whenPrinted('(waiting in write about AI)');
    running.child.kill('SIGINT');
    const ran = await running.done;
    expect(ran.code).toBe(130);
    const id = /run ([0-9a-f-]{36}) started/.exec(ran.stdout)?.[1] ?? '';
    expect(ran.stderr).toContain(`statecrew: run ${id} aborted: interrupted by SIGINT (Ctrl-C) (aborted)`);
    expect(ran.stderr).toContain(`go on with: statecrew resume ${id}`);
    const shown = await cli(['show', id, '--json', '--store', store], { cwd });
    expect(JSON.parse(shown.stdout)).toMatchObject({ status: 'aborted', results: [{ nodeId: 'research' }] });

    const resumed = await cli(['resume', id, '--json', '--store', store], { cwd });
    expect(resumed.code).toBe(0);
    const out = JSON.parse(resumed.stdout) as {
      status: string;
      metadata: { restored: string[] };
      tasksOutput: { name: string; description: string; raw: string }[];
    };
    expect(out.status).toBe('completed');
    expect(out.metadata.restored).toEqual(['research']);
    // The resumed task is asked with the inputs the run was started with, which resume never names.
    expect(out.tasksOutput.find((t) => t.name === 'write')).toMatchObject({
      description: 'write about AI',
      raw: 'Writer: write about AI',
    });
  });

  it('stops gracefully on SIGTERM, in run and in resume: kept running with no owner (not aborted), exit code 143', async () => {
    const grace = ['--shutdown-grace-ms', '0'];
    const running = start(['run', fixture('crew.ts'), '--input', 'topic=AI', '--store', store, ...grace], {
      cwd,
      env: { HANG_AT: 'write' },
    });
    await running.whenPrinted('(waiting in write about AI)');
    running.child.kill('SIGTERM');
    const ran = await running.done;
    expect(ran.code).toBe(143);
    const id = /run ([0-9a-f-]{36}) started/.exec(ran.stdout)?.[1] ?? '';
    expect(ran.stdout).toContain(`run ${id} suspended: kept running with no owner, to be resumed\n`);
    const report =
      `statecrew: run ${id} suspended: terminated by SIGTERM (suspended)\n` +
      `  kept in the store, running with no owner: a statecrew runner resumes it, or go on with: statecrew resume ${id} --store ${store}\n`;
    expect(ran.stderr).toBe(report);
    const shown = await cli(['show', id, '--json', '--store', store], { cwd });
    // `running` with no live owner: what `show` calls interrupted, and a runner resumes.
    expect(JSON.parse(shown.stdout)).toMatchObject({
      status: 'interrupted',
      results: [{ nodeId: 'research' }],
    });
    const kept = new SqliteStore({ path: join(cwd, 'runs.db') });
    expect(await kept.readRun(id)).toMatchObject({ status: 'running', lease: null });
    await kept.close();

    // Resumed, it waits in the same task again: stopped there, it is kept running once more.
    const resuming = start(['resume', id, '--store', store, ...grace], { cwd, env: { HANG_AT: 'write' } });
    await resuming.whenPrinted('(waiting in write about AI)');
    resuming.child.kill('SIGTERM');
    const resumed = await resuming.done;
    expect(resumed.code).toBe(143);
    expect(resumed.stderr).toBe(report);
    const again = await cli(['show', id, '--json', '--store', store], { cwd });
    expect(JSON.parse(again.stdout)).toMatchObject({
      status: 'interrupted',
      results: [{ nodeId: 'research' }],
    });
    // A runner sees it as stuck (no live owner) and finishes it, without running `research` again.
    const runner = start(['runner', fixture('crew.ts'), '--store', store], { cwd });
    await runner.whenPrinted(`run ${id} completed`);
    runner.child.kill('SIGTERM');
    expect((await runner.done).code).toBe(0);
    const done = await cli(['show', id, '--json', '--store', store], { cwd });
    expect(JSON.parse(done.stdout)).toMatchObject({ status: 'completed' });
  });

  it('ends the live list after Ctrl-C with the run aborted and no node left running', async () => {
    const running = start(['run', fixture('crew.ts'), '--input', 'topic=AI', '--store', store], {
      cwd,
      env: { HANG_AT: 'write', FORCE_TTY: '1' },
    });
    await running.whenPrinted('(waiting in write about AI)');
    running.child.kill('SIGINT');
    const ran = await running.done;
    expect(ran.code).toBe(130);
    const last = ran.stdout.slice(ran.stdout.lastIndexOf('\u001b[G') + 3);
    expect(last).toMatch(/✔ research +done/);
    expect(last).toMatch(/■ write +aborted/);
    expect(last).not.toContain('running');
    expect(last).toContain('aborted: interrupted by SIGINT (Ctrl-C) · 1 model calls');
  });

  it('reports a YAML crew’s mistake in one line naming the file, the line and the code', async () => {
    const ran = await cli(['run', fixture('yaml-broken'), '--store', store], { cwd });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toMatch(
      /^statecrew: .*tasks\.yaml line 6: task "write" names agent "navigator".* \(invalid_config\)\n$/,
    );
  });

  it('runs a YAML crew directory with the model its crew.ts exports', async () => {
    const ran = await cli(['run', fixture('yaml-crew'), '--input', 'topic=AI', '--json', '--store', store], {
      cwd,
    });
    expect(ran.stderr).toContain('research started by AI Researcher');
    const out = JSON.parse(ran.stdout) as { tasksOutput: { raw: string }[] };
    expect(out.tasksOutput.map((t) => t.raw)).toEqual([
      'AI Researcher did: research AI',
      'Writer did: write about AI',
    ]);
  });

  it('prints every error as one line with its code, a stack trace only with --verbose', async () => {
    const missing = await cli(['run', 'no-such-crew.ts'], { cwd });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'statecrew: no-such-crew.ts: no such file or directory (unknown_command_target)\n',
    );
    const verbose = await cli(['run', 'no-such-crew.ts', '--verbose'], { cwd });
    expect(verbose.stderr.split('\n')[1]).toMatch(/^UnknownCommandTargetError: /);
    const notFound = await cli(['show', 'no-such-run', '--store', store], { cwd });
    expect(notFound.stderr).toMatch(/^statecrew: the store holds no run "no-such-run" \(run_not_found\)\n$/);
    const badStore = await cli(['runs', '--store', 'mongodb://x'], { cwd });
    expect(badStore.stderr).toMatch(/^statecrew: option "--store" must be .* \(invalid_option\)\n$/);
    const unknown = await cli(['run', fixture('crew.ts'), '--nope'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^statecrew: unknown option '--nope' \(unknown_option\)\n$/);
    const noExport = await cli(['run', fixture('refund-flow.ts'), '--export', 'nothing'], { cwd });
    expect(noExport.stderr).toMatch(/has no export "nothing" \(unknown_command_target\)\n$/);
  });

  it('prints its version with --version and -V', async () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const ran = await Promise.all(['--version', '-V'].map((flag) => cli([flag], { cwd })));
    expect(ran.map((r) => [r.code, r.stdout])).toEqual([
      [0, `${manifest.version}\n`],
      [0, `${manifest.version}\n`],
    ]);
  });

  it('refuses a status runs does not know, naming it and the valid ones', async () => {
    const ran = await cli(['runs', '--status', 'pausd', '--store', store], { cwd });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toBe(
      'statecrew: option "--status" must be one of running, paused, completed, partial, failed, aborted, interrupted, got "pausd" (invalid_option)\n',
    );
  });

  it('is the package’s bin: npx statecrew runs the built file, a node script', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(new URL(manifest.bin.statecrew ?? '', new URL('../../', import.meta.url)).pathname).toBe(CLI);
    expect(readFileSync(CLI, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });

  it('has --help on every command', async () => {
    const commands = ['run', 'resume', 'signal', 'show', 'runs', 'plot', 'paths', 'runner', 'worker'];
    // Each asks a process of its own, and none needs another's: they run side by side.
    const [top, ...helps] = await Promise.all([
      cli(['--help'], { cwd }),
      ...commands.map((command) => cli([command, '--help'], { cwd })),
    ]);
    expect(top?.code).toBe(0);
    for (const command of commands) expect(top?.stdout).toContain(command);
    for (const [i, command] of commands.entries()) {
      expect(helps[i]?.code).toBe(0);
      expect(helps[i]?.stdout).toMatch(new RegExp(`^Usage: statecrew ${command}`));
    }
  });
});
