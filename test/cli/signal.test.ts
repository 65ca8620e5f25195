import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { liveProgress, plainProgress } from '../../src/cli/progress.js';
import type { StatecrewEvent } from '../../src/types.js';
import { CLI_TIMEOUT, cli, fixture, start } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-signal-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const store = `sqlite:${join(cwd, 'runs.db')}`;
const idOf = (text: string) => /run ([0-9a-f-]{36})/.exec(text)?.[1] ?? '';
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/;
const flows = fixture('payment-flow.ts');

describe('statecrew signal, and what show and the progress say of waits, sleeps and handled failures', {
  timeout: CLI_TIMEOUT,
}, () => {
  it('pauses a run at its wait step, shows the event and deadline, refuses a wrong event, and a signal completes it', async () => {
    const paused = await cli(['run', flows, '--store', store], { cwd });
    expect(paused.code).toBe(0);
    const id = idOf(paused.stdout);
    expect(paused.stdout).toMatch(
      new RegExp(`paused: waiting for payment \\(event payment\\.received, times out at ${ISO.source}\\)`),
    );
    expect(paused.stdout).toContain(
      `signal it with: statecrew signal ${id} payment.received --store ${store} [--payload <json>]`,
    );

    const stored = JSON.parse((await cli(['show', id, '--json', '--store', store], { cwd })).stdout) as {
      pending: { timeoutAt: number }[];
    };
    const timeoutAt = new Date(stored.pending[0]?.timeoutAt ?? 0).toISOString();
    const shown = await cli(['show', id, '--store', store], { cwd });
    expect(shown.stdout).toContain(`flow payments run ${id}: paused`);
    expect(shown.stdout).toContain(`payment waits for event "payment.received" (times out at ${timeoutAt})`);
    const markdown = await cli(['show', id, '--markdown', '--store', store], { cwd });
    expect(markdown.stdout).toContain(
      `## Waiting\n\n- **payment** waits for event \`payment.received\` — times out at ${timeoutAt}`,
    );

    // Another process signals it, with the wrong event first: refused in one line, the run untouched.
    const wrong = await cli(['signal', id, 'payment.sent', '--store', store], { cwd });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toMatch(/^statecrew: .*"payment\.sent".*"payment\.received".*\(no_waiter\)\n$/);
    const badPayload = await cli(
      ['signal', id, 'payment.received', '--payload', '{amount: 42}', '--store', store],
      {
        cwd,
      },
    );
    expect(badPayload.code).toBe(1);
    expect(badPayload.stderr).toMatch(/^statecrew: --payload must be JSON .*\(invalid_option\)\n$/);
    expect((await cli(['show', id, '--store', store], { cwd })).stdout).toContain(': paused');

    const signaled = await cli(
      ['signal', id, 'payment.received', '--payload', '{"amount":42}', '--json', '--store', store],
      { cwd },
    );
    expect(signaled.stderr).toBe('');
    expect(signaled.code).toBe(0);
    expect(JSON.parse(signaled.stdout)).toMatchObject({
      status: 'completed',
      trail: ['invoice', 'payment', 'thank'],
      state: { paid: 42 },
      output: 'thanks for $42',
    });
    const again = await cli(['signal', id, 'payment.received', '--store', store], { cwd });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/\(no_waiter\)\n$/);
  });

  it('refuses a run it cannot signal: an unknown id, a crew run', async () => {
    const missing = await cli(['signal', 'no-such-run', 'payment.received', '--store', store], { cwd });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('statecrew: the store holds no run "no-such-run" (run_not_found)\n');
    const crew = await cli(['run', fixture('crew.ts'), '--input', 'topic=AI', '--store', store], { cwd });
    expect(crew.code).toBe(0);
    const refused = await cli(['signal', idOf(crew.stdout), 'done', '--store', store], { cwd });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^statecrew: .*only a flow run waits for events \(unknown_command_target\)\n$/,
    );
  });

  it('prints a handled failure and a sleep while a run goes on, and marks the failure handled after', async () => {
    const ran = await cli(['run', flows, '--export', 'orders', '--store', store], { cwd });
    expect(ran.code).toBe(0);
    const id = idOf(ran.stdout);
    const lines = ran.stdout.split('\n');
    expect(lines).toContain('charge failed: card declined');
    expect(lines).toContain('charge failure handled: the flow goes on');
    expect(ran.stdout).toMatch(new RegExp(`^cool_off sleeping until ${ISO.source}$`, 'm'));
    expect(ran.stdout).toContain(`completed: refund → cool_off → close`);
    expect(lines).toContain('  charge: card declined (handled: the flow went on)');
    const shown = await cli(['show', id, '--store', store], { cwd });
    expect(shown.stdout).toContain('  charge: card declined (handled: the flow went on)');
    const markdown = await cli(['show', id, '--markdown', '--store', store], { cwd });
    expect(markdown.stdout).toContain('## charge — failed (handled)');
  });

  it('shows the sleep a run whose process died sleeps in, with its wake time', async () => {
    const running = start(['run', flows, '--export', 'naps', '--store', store], { cwd });
    await running.whenPrinted('nap sleeping until');
    const wakeAt = new RegExp(`nap sleeping until (${ISO.source})`).exec(running.output())?.[1];
    running.child.kill('SIGKILL');
    await running.done;
    const id = idOf(running.output());
    const shown = await cli(['show', id, '--store', store], { cwd });
    expect(shown.stdout).toContain(`flow naps run ${id}: running`);
    expect(shown.stdout).toContain(`  nap sleeps until ${wakeAt}`);
    const markdown = await cli(['show', id, '--markdown', '--store', store], { cwd });
    expect(markdown.stdout).toContain(`## Sleeping\n\n- **nap** sleeps until ${wakeAt}`);
  });
});

describe('the progress of a flow that waits, sleeps and handles failures', () => {
  const base = { runId: 'run-1', at: 1_000 };
  const wakeAt = Date.UTC(2026, 11, 2, 16, 0);
  const events: StatecrewEvent[] = [
    {
      ...base,
      type: 'node.started',
      nodeId: 'charge',
      name: 'charge',
      attempt: 1,
      agent: '',
      step: 'charge',
    },
    {
      ...base,
      type: 'node.failed',
      nodeId: 'charge',
      attempt: 1,
      durationMs: 5,
      error: 'card declined',
      retryable: false,
      willRetry: false,
      step: 'charge',
    },
    { ...base, type: 'flow.step', name: 'charge', nodeId: 'charge', run: 1, status: 'failed', handled: true },
    { ...base, type: 'node.started', nodeId: 'nap', name: 'nap', attempt: 1, agent: '', step: 'nap' },
    { ...base, type: 'flow.sleeping', step: 'nap', nodeId: 'nap', wakeAt },
    { ...base, type: 'flow.signaled', step: 'payment', event: 'payment.received' },
    { ...base, type: 'flow.timed_out', step: 'approval' },
    {
      ...base,
      type: 'flow.paused',
      waiting: ['approval', 'payment'],
      waitingFor: [
        { step: 'approval', nodeId: 'approval', kind: 'human' },
        { step: 'payment', nodeId: 'payment', kind: 'event', event: 'paid', timeoutAt: wakeAt },
      ],
    },
  ];

  it('prints one plain line for each', () => {
    let written = '';
    const progress = plainProgress({ write: (text: string) => (written += text) }, 'run-1');
    for (const event of events) progress.event(event);
    expect(written.split('\n').slice(1, -1)).toEqual([
      'charge failed: card declined',
      'charge failure handled: the flow goes on',
      'nap started (attempt 1)',
      'nap sleeping until 2026-12-02T16:00:00.000Z',
      'signaled: payment got event payment.received',
      'timed out: approval waited past its deadline',
      'paused: waiting for approval, payment (event paid, times out at 2026-12-02T16:00:00.000Z)',
    ]);
  });

  it('notes them in the live list', () => {
    let written = '';
    const progress = liveProgress(
      { write: (text: string) => (written += text) },
      ['charge', 'nap'],
      'run-1',
      () => 5_000,
    );
    for (const event of events) progress.event(event);
    progress.end();
    const last = written.slice(written.lastIndexOf('\u001b[G') + 3);
    expect(last).toMatch(/✖ charge +failed .* handled: card declined/);
    expect(last).toMatch(/▶ nap +running .* sleeping until 2026-12-02T16:00:00\.000Z/);
    expect(last).toContain(
      'paused: waiting for approval, payment (event paid, times out at 2026-12-02T16:00:00.000Z)',
    );
  });
});
