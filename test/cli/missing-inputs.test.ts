import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, cli, fixture } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-inputs-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('statecrew run and placeholders no input fills', { timeout: CLI_TIMEOUT }, () => {
  it('refuses the run by default: exit code 1, one line naming the placeholder, where, and --input', async () => {
    const store = `sqlite:${join(cwd, 'strict.db')}`;
    const ran = await cli(['run', fixture('crew.ts'), '--store', store], { cwd });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toMatch(/^statecrew: .*\(missing_input\)\n$/);
    expect(ran.stderr).toContain(
      '{topic} in task "research" description, task "write" description, agent "Researcher" goal',
    );
    expect(ran.stderr).toContain('--input topic=…');
    // Nothing ran: the store holds no run.
    const runs = await cli(['runs', '--json', '--store', store], { cwd });
    expect(JSON.parse(runs.stdout)).toEqual([]);
  });

  it('refuses a YAML crew directory the same way', async () => {
    const store = `sqlite:${join(cwd, 'yaml.db')}`;
    const ran = await cli(['run', fixture('yaml-crew'), '--store', store], { cwd });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/\{topic\} in task "research" description.*\(missing_input\)\n$/);
  });

  it('runs with --allow-missing-inputs, printing the warning once after the run started', async () => {
    const store = `sqlite:${join(cwd, 'relaxed.db')}`;
    const ran = await cli(['run', fixture('crew.ts'), '--allow-missing-inputs', '--store', store], { cwd });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const lines = ran.stdout.split('\n');
    expect(lines[0]).toMatch(/^run [0-9a-f-]{36} started/);
    expect(lines[1]).toMatch(
      /^warning: No input fills \{topic\} in task "research" description.*\(missing_input\)$/,
    );
    expect(lines.filter((l) => l.startsWith('warning:'))).toHaveLength(1);
    expect(ran.stdout).toContain('completed: 3 completed, 0 failed');
  });

  it('shows the warning under the live task list on a terminal', async () => {
    const store = `sqlite:${join(cwd, 'live.db')}`;
    const ran = await cli(['run', fixture('crew.ts'), '--allow-missing-inputs', '--store', store], {
      cwd,
      env: { FORCE_TTY: '1' },
    });
    expect(ran.code).toBe(0);
    const last = ran.stdout.slice(ran.stdout.lastIndexOf('\u001b[G') + 3);
    expect(last).toMatch(/warning: No input fills \{topic\}/);
    expect(last).toContain('completed · 3 model calls');
  });

  it('sends the braces as written with --allow-missing-inputs, and says so in --json’s metadata', async () => {
    const store = `sqlite:${join(cwd, 'json.db')}`;
    const ran = await cli(['run', fixture('crew.ts'), '--allow-missing-inputs', '--json', '--store', store], {
      cwd,
    });
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain('warning: No input fills {topic}');
    const out = JSON.parse(ran.stdout) as {
      tasksOutput: { raw: string }[];
      metadata: { missingInputs: { name: string }[] };
    };
    expect(out.tasksOutput[0]?.raw).toBe('Researcher: research {topic}');
    expect(out.metadata.missingInputs.map((m) => m.name)).toEqual(['topic']);
  });

  it('runs with no warning when --input fills every placeholder', async () => {
    const store = `sqlite:${join(cwd, 'filled.db')}`;
    const ran = await cli(['run', fixture('crew.ts'), '--input', 'topic=AI', '--store', store], { cwd });
    expect(ran.code).toBe(0);
    expect(ran.stdout).not.toContain('warning:');
  });
});
