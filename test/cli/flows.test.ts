import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, cli, fixture } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-flows-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const store = `sqlite:${join(cwd, 'runs.db')}`;
const idOf = (text: string) => /run ([0-9a-f-]{36})/.exec(text)?.[1] ?? '';

describe('statecrew with flows: pause, resume, paths', { timeout: CLI_TIMEOUT }, () => {
  it('runs a flow that pauses for a human, lists it as paused, and resumes it with the answer', async () => {
    const paused = await cli(['run', fixture('refund-flow.ts'), '--input', 'amount=480', '--store', store], {
      cwd,
    });
    expect(paused.code).toBe(0);
    const id = idOf(paused.stdout);
    expect(paused.stdout).toContain('paused: waiting for approval');
    expect(paused.stdout).toContain('approval asks: Approve $480?');
    expect(paused.stdout).toContain(
      `answer with: statecrew resume ${id} --store ${store} --route <approved | rejected>`,
    );

    const runs = await cli(['runs', '--status', 'paused', '--json', '--store', store], { cwd });
    expect(JSON.parse(runs.stdout)).toEqual([
      expect.objectContaining({ id, name: 'refunds', kind: 'flow', status: 'paused' }),
    ]);

    // Another process answers; the definition is found where the run noted it.
    const resumed = await cli(
      ['resume', id, '--route', 'approved', '--feedback', 'ok', '--json', '--store', store],
      { cwd },
    );
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const out = JSON.parse(resumed.stdout) as { status: string; trail: string[]; state: { paid: boolean } };
    expect(out).toMatchObject({
      status: 'completed',
      trail: ['check', 'size', 'approval', 'pay'],
      state: { paid: true },
    });
    const shown = await cli(['show', id, '--store', store], { cwd });
    expect(shown.stdout).toContain(`flow refunds run ${id}: completed`);
  });

  it('refuses to resume a paused flow without a route: one error line with the code, then the command that answers it', async () => {
    const paused = await cli(['run', fixture('refund-flow.ts'), '--input', 'amount=900', '--store', store], {
      cwd,
    });
    const id = idOf(paused.stdout);
    const refused = await cli(['resume', id, '--store', store], { cwd });
    expect(refused.code).toBe(1);
    const [line, ...answers] = refused.stderr.trim().split('\n');
    expect(line).toMatch(/^statecrew: .*\(answer_required\)$/);
    expect(answers).toEqual([
      '  approval asks: Approve $900?',
      `  answer with: statecrew resume ${id} --store ${store} --route <approved | rejected> [--feedback <text>]`,
    ]);
  });

  it('lists every path and exits 0 for a sound flow, 1 when the analysis finds problems', async () => {
    const sound = await cli(['paths', fixture('refund-flow.ts')], { cwd });
    expect(sound.code).toBe(0);
    expect(sound.stdout).toMatch(/^flow refunds: 3 paths, termination proven$/m);
    expect(sound.stdout).toContain('✔ check → size → approval → pay  [size=large, approval=approved]');
    const broken = await cli(['paths', fixture('broken-flow.ts')], { cwd });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('unreachable step: both');
    expect(broken.stdout).toContain('unused route: spam');
    expect(broken.stdout).toMatch(/dead end: both waits for/);
    const crew = await cli(['paths', fixture('crew.ts')], { cwd });
    expect(crew.code).toBe(0);
    expect(crew.stdout).toContain('crew research (sequential): 4 paths, termination proven');
  });
});
