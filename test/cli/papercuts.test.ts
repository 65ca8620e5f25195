import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  LISTED_RUN_STATUSES,
  prunedText,
  type RunRow,
  runsCommand,
  runsTable,
} from '../../src/cli/commands/runs.js';
import { clipLine, ellipsize, fitWidths } from '../../src/cli/fit.js';
import { abortedReport, InterruptedError, watchInterrupts } from '../../src/cli/interrupt.js';
import { type CliIo, errorLine } from '../../src/cli/output.js';
import { runCli } from '../../src/cli/program.js';
import { liveProgress } from '../../src/cli/progress.js';
import { packageVersion } from '../../src/cli/version.js';
import { InvalidOptionError, RunAbortedError, RunNotFoundError } from '../../src/errors.js';
import { STORED_RUN_STATUSES } from '../../src/stores/store.js';
import type { StatecrewEvent } from '../../src/types.js';

/** A command's io writing to strings, as wide as `columns`. */
function memoryIo(columns?: number): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (text: string) => (out += text), ...(columns === undefined ? {} : { columns }) },
    stderr: { write: (text: string) => (err += text) },
    env: {},
    out: () => out,
    err: () => err,
  };
}

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const widest = (text: string) => Math.max(...text.split('\n').map((line) => [...line].length));

describe('statecrew --version', () => {
  it('prints the version of the package.json two folders up from the CLI, and exits 0', async () => {
    expect(packageVersion()).toBe(manifest.version);
    for (const flag of ['--version', '-V']) {
      const io = memoryIo();
      expect(await runCli([flag], io)).toBe(0);
      expect(io.out()).toBe(`${manifest.version}\n`);
      expect(io.err()).toBe('');
    }
  });

  it('says unknown when the package.json cannot be read', () => {
    expect(packageVersion(new URL('./no-such-package.json', import.meta.url))).toBe('unknown');
  });
});

describe('SIGINT and SIGTERM while a command runs something', () => {
  const eventsOf = (source: EventEmitter) => source.listenerCount('SIGINT') + source.listenerCount('SIGTERM');

  for (const [signal, code, reason] of [
    ['SIGINT', 130, 'interrupted by SIGINT (Ctrl-C)'],
    ['SIGTERM', 143, 'terminated by SIGTERM'],
  ] as const) {
    it(`aborts the run with a reason naming ${signal}, exit code ${code}; a second signal exits at once`, () => {
      const source = new EventEmitter();
      const exits: number[] = [];
      const interrupts = watchInterrupts(source, (exit) => exits.push(exit));
      expect(interrupts.signal.aborted).toBe(false);
      source.emit(signal);
      expect(interrupts.signal.aborted).toBe(true);
      expect(interrupts.signal.reason).toBeInstanceOf(InterruptedError);
      expect((interrupts.signal.reason as InterruptedError).message).toBe(reason);
      expect((interrupts.signal.reason as InterruptedError).signal).toBe(signal);
      expect(interrupts.exitCode()).toBe(code);
      expect(exits).toEqual([]);
      source.emit('SIGTERM');
      expect(exits).toEqual([143]);
      interrupts.dispose();
      expect(eventsOf(source)).toBe(0);
    });
  }

  it('reports the aborted run in one error line and says how to resume it, with its options quoted', () => {
    const error = new RunAbortedError('run-1', new InterruptedError('SIGTERM'), undefined);
    expect(abortedReport('run-1', error, ['--store', 'sqlite:my runs.db'])).toBe(
      'statecrew: run run-1 aborted: terminated by SIGTERM (aborted)\n' +
        "  kept in the store; go on with: statecrew resume run-1 --store 'sqlite:my runs.db'\n",
    );
  });
});

describe('error lines', () => {
  it('print the CLI’s own errors with one statecrew: prefix and their code', () => {
    const option = new InvalidOptionError('statecrew', '--store', 'memory', 'x');
    expect(errorLine(option, false)).toBe(
      'statecrew: option "--store" must be memory, got "x" (invalid_option)\n',
    );
    expect(errorLine(new RunNotFoundError('statecrew show', 'r1'), false)).toBe(
      'statecrew: the store holds no run "r1" (run_not_found)\n',
    );
  });

  it('join a message of several lines into one, and name an unexpected error', () => {
    expect(errorLine(new Error('first\n  second\n'), false)).toBe(
      'statecrew: first second (unexpected_error)\n',
    );
  });

  it('print commander’s usage errors on one line, and nothing more after the help of a bare statecrew', async () => {
    const typo = memoryIo();
    expect(await runCli(['rnu'], typo)).toBe(2);
    expect(typo.err()).toMatch(
      /^statecrew: unknown command 'rnu' \(Did you mean run\?\) \(unknown_command\)\n$/,
    );
    const bare = memoryIo();
    expect(await runCli([], bare)).toBe(2);
    expect(bare.err()).toMatch(/^Usage: statecrew/);
    expect(bare.err()).not.toContain('statecrew: ');
  });
});

describe('statecrew runs --status', () => {
  it('refuses a status runs never shows, naming it and the valid ones, before looking at --store', async () => {
    const io = memoryIo();
    expect(await runCli(['runs', '--status', 'pausd', '--store', 'mongodb://not-a-store'], io)).toBe(1);
    expect(io.out()).toBe('');
    const line = io.err();
    expect(line.split('\n')).toEqual([
      expect.stringMatching(/^statecrew: .*"pausd".*\(invalid_option\)$/),
      '',
    ]);
    for (const status of LISTED_RUN_STATUSES) expect(line).toContain(status);
  });

  it('takes every status runs shows (the stored ones and interrupted), and only stored ones to prune', async () => {
    expect(LISTED_RUN_STATUSES).toEqual([...STORED_RUN_STATUSES, 'interrupted']);
    for (const status of LISTED_RUN_STATUSES) {
      const io = memoryIo();
      expect(await runsCommand({ status, store: 'memory' }, io)).toBe(0);
      expect(io.out()).toBe('no runs\n');
    }
    await expect(
      runsCommand({ status: 'interrupted', prune: '1d', store: 'memory' }, memoryIo()),
    ).rejects.toThrow(
      /option "--status" must be one of running, paused, completed, partial, failed, aborted, got "interrupted"/,
    );
  });
});

const at = Date.UTC(2025, 0, 2, 3, 4, 5);
const rows: RunRow[] = [
  { id: '3f2a9c1e-12a4-4c33-b196-dcf390e514d2', name: 'research', kind: 'crew', status: 'completed', at },
  {
    id: '97bd7807-c9a2-4c33-b196-dcf390e514d2',
    name: 'quarterly-due-diligence-of-a-very-long-named-company',
    kind: 'flow',
    status: 'interrupted',
    at,
  },
];

describe('narrow terminals', () => {
  it('keep the runs table whole when the width is unknown or wide enough', () => {
    const table = runsTable(rows, undefined);
    expect(table).toContain(`${rows[0]?.id}  research`);
    expect(table).toContain('2025-01-02T03:04:05.000Z');
    expect(runsTable(rows.slice(0, 1), 200)).toBe(runsTable(rows.slice(0, 1), undefined));
  });

  it('fit every line of the runs table into 60 columns, cutting ids and names with an ellipsis', () => {
    const table = runsTable(rows, 60);
    expect(widest(table)).toBeLessThanOrEqual(60);
    const lines = table.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +NAME +KIND +STATUS +TIME \(UTC\)$/);
    expect(lines[1]).toMatch(/^3f2a9c1e-\S*… +research +crew +completed +01-02 03:04$/);
    expect(lines[2]).toMatch(/^97bd7807-\S*… +quarter… +flow +interrupted +01-02 03:04$/);
    expect(lines.at(-1)).toBe('(ids cut to fit; --json shows them whole)');
    expect(widest(prunedText([rows[0]?.id ?? '', rows[1]?.id ?? ''], 60))).toBeLessThanOrEqual(60);
    expect(prunedText(['a', 'b'], 60)).toBe('pruned 2 runs: a, b\n');
  });

  it('keep ids whole on an 80-column terminal, shortening the times instead', () => {
    const table = runsTable(rows.slice(0, 1), 80);
    expect(widest(table)).toBeLessThanOrEqual(80);
    expect(table).toBe(
      'ID                                    NAME      KIND  STATUS     TIME (UTC)\n' +
        '3f2a9c1e-12a4-4c33-b196-dcf390e514d2  research  crew  completed  01-02 03:04\n',
    );
  });

  it('narrow the columns in the order given, each down to its minimum, and cut what still does not fit', () => {
    const shrinks = [
      { column: 1, minimum: 8 },
      { column: 0, minimum: 9 },
    ];
    expect(fitWidths([36, 20, 4], shrinks, 2, 60)).toEqual([36, 16, 4]);
    expect(fitWidths([36, 20, 4], shrinks, 2, 40)).toEqual([24, 8, 4]);
    expect(fitWidths([36, 20, 4], shrinks, 2, 10)).toEqual([9, 8, 4]);
    expect(ellipsize('abcdef', 4)).toBe('abc…');
    expect(clipLine('abcdef', 3)).toBe('ab…');
    expect(clipLine('abcdef', undefined)).toBe('abcdef');
  });

  it('fit the live list’s rows into 60 columns', () => {
    let written = '';
    const out = { write: (text: string) => (written += text), columns: 60 };
    const long = 'summarize-every-quarterly-filing-of-the-company';
    const progress = liveProgress(out, [long, 'edit'], 'run-1', () => 5_000);
    const base = { runId: 'run-1', at: 1_000 };
    progress.event({
      ...base,
      type: 'node.started',
      nodeId: long,
      agent: 'Analyst',
      attempt: 1,
    } as StatecrewEvent);
    const error = `the model said no ${'and then some more words '.repeat(5)}`;
    progress.event({
      ...base,
      type: 'node.failed',
      nodeId: long,
      error,
      willRetry: false,
      durationMs: 900,
    } as StatecrewEvent);
    progress.end();
    const last = written.slice(written.lastIndexOf('\u001b[G') + 3);
    expect(last).toMatch(/^✖ summarize-every-\S*… +failed/);
    expect(widest(last)).toBeLessThanOrEqual(60);
  });
});

describe('the live list after Ctrl-C', () => {
  it('shows the nodes that were running as aborted, and the run as aborted with the reason', () => {
    let written = '';
    const out = { write: (text: string) => (written += text) };
    const progress = liveProgress(out, ['research', 'write', 'edit'], 'run-1', () => 4_000);
    const base = { runId: 'run-1', at: 1_000 };
    const started = (nodeId: string) =>
      ({ ...base, type: 'node.started', nodeId, agent: 'Writer', attempt: 1 }) as StatecrewEvent;
    progress.event(started('research'));
    progress.event({
      ...base,
      type: 'node.completed',
      nodeId: 'research',
      durationMs: 500,
    } as StatecrewEvent);
    progress.event(started('write'));
    progress.event({ ...base, type: 'run.failed', error: 'Run "run-1" was aborted', code: 'aborted' });
    progress.end('interrupted by SIGINT (Ctrl-C)');
    const last = written.slice(written.lastIndexOf('\u001b[G') + 3);
    expect(last).toMatch(/✔ research +done/);
    expect(last).toMatch(/■ write +aborted +3\.0 s/);
    expect(last).toMatch(/· edit +waiting/);
    expect(last).not.toContain('running');
    expect(last).toContain('aborted: interrupted by SIGINT (Ctrl-C) · 0 model calls');
  });
});

describe('statecrew runs --prune --keep-history', () => {
  it("deletes only old runs' kept events, keeping their history, and needs --prune", async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { createFlow, SqliteStore, readEvents, readHistory } = await import('../../src/index.js');
    const dir = mkdtempSync(join(tmpdir(), 'statecrew-keep-history-'));
    const path = join(dir, 'runs.db');
    try {
      const store = new SqliteStore({ path });
      const flow = createFlow({ name: 'two', store, initialState: {} })
        .start('a', () => 'a')
        .listen('b', 'a', () => 'b');
      await flow.kickoff({ inputs: { id: 'old' }, events: 'store' });
      expect((await readEvents(store, 'old')).length).toBeGreaterThan(0);
      // `--prune 0ms` takes runs last changed before now: wait for the clock to pass the run's last write.
      const written = (await store.readRun('old'))?.updatedAt ?? Number.POSITIVE_INFINITY;
      while (Date.now() <= written) await new Promise<void>((resolve) => setImmediate(resolve));
      await store.close();
      const io = memoryIo();
      expect(await runsCommand({ prune: '0ms', keepHistory: true, store: `sqlite:${path}` }, io)).toBe(0);
      expect(io.out()).toBe('deleted the kept events of 1 run (their history kept): old\n');
      const reopened = new SqliteStore({ path });
      expect(await readEvents(reopened, 'old')).toEqual([]);
      const history = await readHistory(reopened, 'old');
      expect(history.checkpoints.map((c) => c.nodeId)).toEqual(['a', 'b']);
      await reopened.close();
      await expect(runsCommand({ keepHistory: true, store: `sqlite:${path}` }, memoryIo())).rejects.toThrow(
        /--keep-history.*--prune/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
