import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, cli, fixture } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-run-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const store = `sqlite:${join(cwd, 'runs.db')}`;
const idOf = (text: string) => /run ([0-9a-f-]{36})/.exec(text)?.[1] ?? '';

describe('statecrew run, show and runs', { timeout: CLI_TIMEOUT }, () => {
  it('runs a module’s crew without a terminal: one plain line per lifecycle event, then the result', async () => {
    const ran = await cli(['run', fixture('crew.ts'), '--input', 'topic=actors', '--store', store], { cwd });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const lines = ran.stdout.split('\n');
    expect(lines[0]).toMatch(/^run [0-9a-f-]{36} started \(sequential, 3 nodes\)$/);
    expect(lines.slice(1, 7)).toEqual([
      'research started by Researcher (attempt 1)',
      expect.stringMatching(/^research completed in \d+ ms$/),
      'write started by Writer (attempt 1)',
      expect.stringMatching(/^write completed in \d+ ms$/),
      'edit started by Writer (attempt 1)',
      expect.stringMatching(/^edit completed in \d+ ms$/),
    ]);
    expect(ran.stdout).toMatch(
      /completed: 3 completed, 0 failed, 0 blocked \([\d.]+ s, 3 model calls, 45 tokens\)/,
    );
    expect(ran.stdout).toContain('\nWriter: edit the draft\n');
    expect(ran.stdout).not.toContain('\u001b['); // no terminal control codes
  });

  it('prints the result as JSON with --json, the progress going to stderr', async () => {
    const ran = await cli(['run', fixture('crew.ts'), '--input', 'topic=AI', '--json', '--store', store], {
      cwd,
    });
    expect(ran.code).toBe(0);
    const out = JSON.parse(ran.stdout) as { status: string; raw: string; tasksOutput: { name: string }[] };
    expect(out.status).toBe('completed');
    expect(out.tasksOutput.map((t) => t.name)).toEqual(['research', 'write', 'edit']);
    expect(ran.stderr).toContain('research started by Researcher');
  });

  it('draws a live task list on a terminal (FORCE_TTY), ending with every task done and the totals', async () => {
    const ran = await cli(['run', fixture('crew.ts'), '--input', 'topic=AI', '--store', store], {
      cwd,
      env: { FORCE_TTY: '1' },
    });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('\u001b['); // redrawn in place
    // The last list is written whole after the last cursor move.
    const last = ran.stdout.slice(ran.stdout.lastIndexOf('\u001b[G') + 3);
    expect(last).toMatch(/✔ research +done/);
    expect(last).toMatch(/✔ edit +done/);
    expect(last).toContain('completed · 3 model calls · 45 tokens');
    // A frame in between showed a task running while a later one waited.
    expect(ran.stdout).toMatch(/· edit +waiting/);
  });

  it('shows a stored run as a summary, Markdown or JSON, and lists it among the runs', async () => {
    const ran = await cli(['run', fixture('crew.ts'), '--input', 'topic=show', '--store', store], { cwd });
    const id = idOf(ran.stdout);
    const summary = await cli(['show', id, '--store', store], { cwd });
    expect(summary.code).toBe(0);
    expect(summary.stdout).toContain(`crew research (sequential) run ${id}: completed`);
    expect(summary.stdout).toContain('✔ write by Writer: Writer: write about show');
    const markdown = await cli(['show', id, '--markdown', '--store', store], { cwd });
    expect(markdown.stdout).toContain('### 2. write — completed');
    const json = await cli(['show', id, '--json', '--store', store], { cwd });
    expect(JSON.parse(json.stdout)).toMatchObject({ executionId: id, status: 'completed' });
    const runs = await cli(['runs', '--store', store], { cwd });
    expect(runs.stdout.split('\n')[0]).toMatch(/^ID +NAME +KIND +STATUS +TIME$/);
    expect(runs.stdout).toMatch(new RegExp(`${id} +research +crew +completed +\\d{4}-`));
    const none = await cli(['runs', '--status', 'paused', '--json', '--store', store], { cwd });
    expect(JSON.parse(none.stdout)).toEqual([]);
  });

  it('plots a definition, and a stored run with its outputs, as one self-contained HTML file', async () => {
    const definition = await cli(['plot', fixture('crew.ts'), '-o', join(cwd, 'definition.html')], { cwd });
    expect(definition.code).toBe(0);
    expect(definition.stdout.trim()).toBe(join(cwd, 'definition.html'));
    const page = readFileSync(join(cwd, 'definition.html'), 'utf8');
    expect(page).toMatch(/^<!doctype html>/i);
    expect(page).not.toMatch(/<script[^>]+src=|<link[^>]+href=/); // nothing loaded from elsewhere

    const ran = await cli(['run', fixture('crew.ts'), '--input', 'topic=plots', '--store', store], { cwd });
    const id = idOf(ran.stdout);
    const plotted = await cli(['plot', id, '--store', store], { cwd });
    expect(plotted.code).toBe(0);
    const file = plotted.stdout.trim();
    expect(file).toBe(join(cwd, '.statecrew', 'views', `${id}.html`));
    expect(readFileSync(file, 'utf8')).toContain('Writer: write about plots');
    const missing = await cli(['plot', 'no-such-run', '--store', store], { cwd });
    expect(missing.stderr).toMatch(/\(run_not_found\)\n$/);
  });

  it('plots a stored run whose agents delegated: the message between them, with its reply', async () => {
    const ran = await cli(['run', fixture('delegating-crew.ts'), '--store', store], { cwd });
    expect(ran.code).toBe(0);
    const plotted = await cli(['plot', idOf(ran.stdout), '--store', store], { cwd });
    expect(plotted.code).toBe(0);
    const page = readFileSync(plotted.stdout.trim(), 'utf8');
    expect(page).toContain('data-from="Writer" data-to="Researcher"');
    expect(page).toContain('Writer → Researcher: delegated &quot;Find a fact about otters&quot;');
    expect(page).toContain('Otters hold hands while they sleep');
  });
});
