import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunHistory } from '../../src/index.js';
import { CLI_TIMEOUT, cli, fixture } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-time-travel-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const store = `sqlite:${join(cwd, 'runs.db')}`;
const idOf = (text: string) => /run ([0-9a-f-]{36})/.exec(text)?.[1] ?? '';

describe('statecrew history', { timeout: CLI_TIMEOUT }, () => {
  it("lists a crew run's checkpoints as a table, a page at a time, and as JSON", async () => {
    const ran = await cli(['run', fixture('crew.ts'), '--input', 'topic=tides', '--store', store], { cwd });
    expect(ran.code).toBe(0);
    const id = idOf(ran.stdout);

    const all = await cli(['history', id, '--store', store], { cwd });
    expect(all.stderr).toBe('');
    expect(all.code).toBe(0);
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`crew research run ${id}: completed`);
    expect(lines[1]).toMatch(/^SEQ\s+CHECKPOINT\s+STATUS\s+AT\s+OUTPUT$/);
    expect(lines.slice(2)).toEqual([
      expect.stringMatching(
        /^1\s+research\s+completed\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+Researcher: research tides$/,
      ),
      expect.stringMatching(/^2\s+write\s+completed\s+\S+\s+Writer: write about tides$/),
      expect.stringMatching(/^3\s+edit\s+completed\s+\S+\s+Writer: edit the draft$/),
    ]);

    const first = await cli(['history', id, '--limit', '2', '--store', store], { cwd });
    expect(first.stdout.trimEnd().split('\n').slice(-1)).toEqual([
      `more: statecrew history ${id} --after 2 --limit 2 --store ${store}`,
    ]);
    const rest = await cli(['history', id, '--after', '2', '--limit', '2', '--json', '--store', store], {
      cwd,
    });
    const page = JSON.parse(rest.stdout) as RunHistory;
    expect(page).toMatchObject({ id, kind: 'crew', name: 'research', status: 'completed' });
    expect(page.checkpoints.map((c) => [c.seq, c.checkpoint, c.output])).toEqual([
      [3, 'edit', 'Writer: edit the draft'],
    ]);
    expect(page.next).toBeUndefined();
  });

  it("lists a flow run's steps, and refuses an unknown run and a bad page with their codes", async () => {
    const ran = await cli(['run', fixture('refund-flow.ts'), '--input', 'amount=30', '--store', store], {
      cwd,
    });
    const id = idOf(ran.stdout);
    const shown = await cli(['history', id, '--json', '--store', store], { cwd });
    const history = JSON.parse(shown.stdout) as RunHistory;
    expect(history.checkpoints.map((c) => [c.checkpoint, c.output])).toEqual([
      ['check', 'asks for $30'],
      ['size', 'small'],
      ['pay', 'paid $30'],
    ]);
    expect(history.checkpoints[2]?.state).toMatchObject({ amount: 30, paid: true });

    const missing = await cli(['history', 'no-such-run', '--store', store], { cwd });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^statecrew: .*no-such-run.*\(run_not_found\)\n$/);
    const bad = await cli(['history', id, '--limit', '0', '--store', store], { cwd });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--limit.*\(invalid_option\)\n$/);
  });
});

describe('statecrew fork', { timeout: CLI_TIMEOUT }, () => {
  it('forks a crew run at a task with an earlier output edited, and says where it came from', async () => {
    const ran = await cli(['run', fixture('crew.ts'), '--input', 'topic=moss', '--store', store], { cwd });
    const id = idOf(ran.stdout);
    const forked = await cli(
      [
        'fork',
        id,
        '--at',
        'write',
        '--output',
        'research=edited facts',
        '--id',
        'moss-fork',
        '--store',
        store,
      ],
      { cwd },
    );
    expect(forked.stderr).toBe('');
    expect(forked.code).toBe(0);
    const lines = forked.stdout.split('\n');
    expect(lines[0]).toBe(`forked from ${id} at write: run moss-fork`);
    expect(lines[1]).toMatch(/^completed: 3 completed, 0 failed/);
    expect(forked.stdout).toContain('run moss-fork');

    const history = JSON.parse(
      (await cli(['history', 'moss-fork', '--json', '--store', store], { cwd })).stdout,
    ) as RunHistory;
    expect(history.forkedFrom).toEqual({ runId: id, checkpoint: 'write' });
    expect(history.checkpoints.map((c) => [c.checkpoint, c.output])).toEqual([
      ['research', 'edited facts'],
      ['write', 'Writer: write about moss'],
      ['edit', 'Writer: edit the draft'],
    ]);
    const shown = await cli(['history', 'moss-fork', '--store', store], { cwd });
    expect(shown.stdout.split('\n')[0]).toBe(
      `crew research run moss-fork: completed (forked from ${id} at write)`,
    );
  });

  it('refuses a --state that is not a JSON object, and a --state for a crew, naming the option', async () => {
    const ran = await cli(['run', fixture('crew.ts'), '--input', 'topic=ferns', '--store', store], { cwd });
    const id = idOf(ran.stdout);
    const notJson = await cli(['fork', id, '--at', 'write', '--state', '{amount: 5', '--store', store], {
      cwd,
    });
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/^statecrew: --state is not JSON .*\(invalid_option\)\n$/);
    const crew = await cli(['fork', id, '--at', 'write', '--state', '{"amount": 5}', '--store', store], {
      cwd,
    });
    expect(crew.code).toBe(1);
    expect(crew.stderr).toMatch(/--state edits a flow's state.*--output <node>=<text> \(invalid_option\)\n$/);
    const nowhere = await cli(['fork', id, '--at', 'nowhere', '--store', store], { cwd });
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(/no committed checkpoint "nowhere".*\(checkpoint_not_found\)\n$/);
  });

  it('forks a flow run at a step with its state edited: it takes the other route', async () => {
    const ran = await cli(['run', fixture('refund-flow.ts'), '--input', 'amount=480', '--store', store], {
      cwd,
    });
    const id = idOf(ran.stdout);
    expect(ran.stdout).toContain('paused');
    const forked = await cli(['fork', id, '--at', 'check', '--state', '{"amount": 50}', '--store', store], {
      cwd,
    });
    expect(forked.stderr).toBe('');
    expect(forked.code).toBe(0);
    const [line, result] = forked.stdout.split('\n');
    expect(line).toMatch(new RegExp(`^forked from ${id} at check: run [0-9a-f-]{36}$`));
    expect(result).toMatch(/^completed: check → size → pay /);
    expect(forked.stdout).toContain('paid $50');
  });
});

describe('statecrew runs --thread', { timeout: CLI_TIMEOUT }, () => {
  it("lists a thread's runs, oldest first", async () => {
    const ids: string[] = [];
    for (const amount of [5, 6]) {
      const run = await cli(
        [
          'run',
          fixture('refund-flow.ts'),
          '--input',
          `amount=${amount}`,
          '--thread',
          'chat-7',
          '--store',
          store,
        ],
        { cwd },
      );
      expect(run.code, run.stderr).toBe(0);
      ids.push(idOf(run.stdout));
    }
    const listed = await cli(['runs', '--thread', 'chat-7', '--json', '--store', store], { cwd });
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((r) => r.id)).toEqual(ids);
    const none = await cli(['runs', '--thread', 'no-such-thread', '--store', store], { cwd });
    expect(none.stdout).toBe('no runs\n');
  });
});
