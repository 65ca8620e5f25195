import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, cli, fixture } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-answers-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** The run id a command's output names. */
const idIn = (stdout: string) => /run ([0-9a-f-]{36})/.exec(stdout)?.[1] ?? '';

/**
 * The command a paused run's output prints after `label` (`approve it:`), as arguments of the CLI,
 * its `<placeholder>` replaced by `fill`: what a person copies and runs.
 */
function printed(stdout: string, label: string, fill = ''): string[] {
  const line = stdout.split('\n').find((l) => l.trim().startsWith(label)) ?? '';
  const command = line.slice(line.indexOf('statecrew resume ') + 'statecrew '.length);
  expect(command).toMatch(/^resume /);
  return command
    .replace(/<[^>]+>/, 'FILL')
    .split(' ')
    .map((word) => (word === 'FILL' ? fill : word));
}

describe('statecrew resume answers a crew’s approvals and reviews', { timeout: CLI_TIMEOUT }, () => {
  it('approves the call and then the review with the exact commands the paused runs print, to completion', async () => {
    const store = `sqlite:${join(cwd, 'approve.db')}`;
    const ran = await cli(['run', fixture('answers-crew.ts'), '--store', store], { cwd });
    expect(ran.code).toBe(0);
    const id = idIn(ran.stdout);
    expect(ran.stdout).toContain(`paused: 0 completed`);
    expect(ran.stdout).toContain('refund waits for call refund.1.1.0 (Clerk → refund)');
    expect(ran.stdout).toContain(
      `approve it: statecrew resume ${id} --store ${store} --approve refund.1.1.0`,
    );
    expect(ran.stdout).toContain(
      `deny it:    statecrew resume ${id} --store ${store} --deny refund.1.1.0 --feedback <why>`,
    );
    expect(ran.stdout).not.toContain('crew.resume(');

    const approved = await cli(printed(ran.stdout, 'approve it:'), { cwd });
    expect(approved.stderr).toBe('');
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain('paused: 1 completed');
    expect(approved.stdout).toContain('note waits for a review of its output');
    expect(approved.stdout).toContain(
      `approve it:   statecrew resume ${id} --store ${store} --review note approve`,
    );

    const reviewed = await cli(printed(approved.stdout, 'approve it:'), { cwd });
    expect(reviewed.stderr).toBe('');
    expect(reviewed.code).toBe(0);
    expect(reviewed.stdout).toMatch(/^completed: 2 completed, 0 failed/);
    expect(reviewed.stdout).toContain('note on: clerk: refunded 42');
    expect(reviewed.stdout).not.toContain('waits');
  });

  it('denies the call with feedback, sends the review back with feedback, then approves it: the model is told each', async () => {
    const store = `sqlite:${join(cwd, 'deny.db')}`;
    const ran = await cli(['run', fixture('answers-crew.ts'), '--store', store], { cwd });
    const id = idIn(ran.stdout);
    const denied = await cli(printed(ran.stdout, 'deny it:', 'too much'), { cwd });
    expect(denied.code).toBe(0);
    expect(denied.stdout).toContain('paused: 1 completed');
    // The refund never ran: the clerk's model got the refusal and its feedback instead.
    expect(denied.stdout).not.toContain('refunded 42');
    expect(denied.stdout).toMatch(/clerk: .*too much/);

    const sentBack = await cli(
      ['resume', id, '--store', store, '--review', 'note', '--feedback', 'name the amount'],
      { cwd },
    );
    expect(sentBack.stderr).toBe('');
    expect(sentBack.code).toBe(0);
    // Another attempt, told the feedback, waits for review again.
    expect(sentBack.stdout).toContain('note waits for a review of its output');
    const shown = await cli(['show', id, '--json', '--store', store], { cwd });
    const doc = JSON.parse(shown.stdout) as { results: { nodeId: string; raw?: string; attempts: number }[] };
    const note = doc.results.find((r) => r.nodeId === 'note');
    expect(note?.attempts).toBe(2);

    const done = await cli(['resume', id, '--store', store, '--review', 'note', 'approve'], { cwd });
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^completed: 2 completed, 0 failed/);
    expect(done.stdout).toContain('(told: ');
    expect(done.stdout).toContain('name the amount');
  });

  it('prints the commands that answer a paused crew resumed without an answer, exit 1 (answer_required)', async () => {
    const store = `sqlite:${join(cwd, 'none.db')}`;
    const ran = await cli(['run', fixture('answers-crew.ts'), '--store', store], { cwd });
    const id = idIn(ran.stdout);
    const bare = await cli(['resume', id, '--store', store], { cwd });
    expect(bare.code).toBe(1);
    expect(bare.stdout).toBe('');
    const [first, ...rest] = bare.stderr.trimEnd().split('\n');
    expect(first).toBe(
      `statecrew: Crew "refunds" run "${id}" waits for "call refund.1.1.0 (Clerk → refund)": answer it with one of these (answer_required)`,
    );
    expect(rest).toEqual([
      '  refund waits for call refund.1.1.0 (Clerk → refund)',
      `    approve it: statecrew resume ${id} --store ${store} --approve refund.1.1.0`,
      `    deny it:    statecrew resume ${id} --store ${store} --deny refund.1.1.0 --feedback <why>`,
    ]);
    expect(bare.stderr).not.toContain('{ approvals');
  });

  it('refuses a review with neither approve nor --feedback, a call that does not wait, and --route for a crew, naming the flags (invalid_option)', async () => {
    const store = `sqlite:${join(cwd, 'bad.db')}`;
    const ran = await cli(['run', fixture('answers-crew.ts'), '--store', store], { cwd });
    const id = idIn(ran.stdout);
    const bare = await cli(['resume', id, '--store', store, '--review', 'note'], { cwd });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toBe(
      'statecrew: --review note needs "approve" after it (--review note approve) or --feedback <text> to send the output back (invalid_option)\n',
    );
    const unknown = await cli(['resume', id, '--store', store, '--approve', 'nope'], { cwd });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      `statecrew: run ${id}: --approve or --deny names "nope", which does not wait for approval; the run waits for call refund.1.1.0 (Clerk → refund); answer it with one of these (invalid_option)\n` +
        '  refund waits for call refund.1.1.0 (Clerk → refund)\n' +
        `    approve it: statecrew resume ${id} --store ${store} --approve refund.1.1.0\n` +
        `    deny it:    statecrew resume ${id} --store ${store} --deny refund.1.1.0 --feedback <why>\n`,
    );
    const routed = await cli(['resume', id, '--store', store, '--route', 'approved'], { cwd });
    expect(routed.code).toBe(1);
    expect(routed.stderr).toContain(
      `--route answers a flow's human step, and run ${id} is a run of crew "refunds"`,
    );
    expect(routed.stderr).toMatch(/\(invalid_option\)\n$/);
  });
});

describe('statecrew resume on a paused flow names the flags', { timeout: CLI_TIMEOUT }, () => {
  it('prints the --route command for a flow resumed without an answer, and calls a wrong route a human step’s', async () => {
    const store = `sqlite:${join(cwd, 'flow.db')}`;
    const ran = await cli(['run', fixture('refund-flow.ts'), '--input', 'amount=500', '--store', store], {
      cwd,
    });
    const id = idIn(ran.stdout);
    expect(ran.stdout).toContain(
      `answer with: statecrew resume ${id} --store ${store} --route <approved | rejected> [--feedback <text>]`,
    );
    const bare = await cli(['resume', id, '--store', store], { cwd });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toBe(
      `statecrew: Flow "refunds" run "${id}" waits for "approval": answer it with one of these (answer_required)\n` +
        '  approval asks: Approve $500?\n' +
        `  answer with: statecrew resume ${id} --store ${store} --route <approved | rejected> [--feedback <text>]\n`,
    );
    const wrong = await cli(['resume', id, '--store', store, '--route', 'maybe'], { cwd });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(
      'statecrew: Human step "approval" was answered with route "maybe", which is not one of its routes: "approved", "rejected" (unknown_route)\n',
    );
    const answered = await cli(['resume', id, '--store', store, '--route', 'approved'], { cwd });
    expect(answered.code).toBe(0);
    expect(answered.stdout).toMatch(/^completed: check → size → approval → pay/);
  });
});
