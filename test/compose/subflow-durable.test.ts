import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHistory, type Store } from '../../src/index.js';
import { countRuns, runLogs } from '../durable/processes.js';
import { type ProvidedStore, services, storeKinds } from '../durable/store-specs.js';
import { openStore, type StoreSpec } from '../fixtures/durable/stores.js';

const script = fileURLToPath(new URL('../fixtures/compose/subflow-process.ts', import.meta.url));
const freshLog = runLogs('statecrew-subflow-');
if (!services) console.log('PostgreSQL and Redis cases skipped: STATECREW_NO_SERVICES=1');

type Line = Record<string, unknown>;

/** Runs one command in a process of its own; `until` may end it early (SIGKILL) on a line it printed. */
function inProcess(spec: StoreSpec, log: string, command: Line, killOn?: (line: Line) => boolean) {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', script, JSON.stringify(spec), log, JSON.stringify(command)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  proc.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<Line>((resolve, reject) => {
    let buffer = '';
    let last: Line | undefined;
    proc.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        const text = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        if (!text.startsWith('{')) continue;
        last = JSON.parse(text) as Line;
        if (killOn?.(last) === true) proc.kill('SIGKILL');
      }
    });
    proc.on('exit', () => (last === undefined ? reject(new Error(`no reply: ${stderr}`)) : resolve(last)));
  });
}

for (const [kind, provide] of storeKinds()) {
  describe(`subflows across processes on ${kind}`, () => {
    let provided: ProvidedStore;
    let store: Store;

    beforeAll(async () => {
      provided = provide();
      store = await openStore(provided.spec);
    }, 60_000);

    afterAll(async () => {
      await store?.close();
      await provided?.cleanup();
    });

    it("answers a child flow's human step through its parent from another process", async () => {
      const log = freshLog();
      const id = `human-${kind}`;
      const paused = await inProcess(provided.spec, log, { op: 'kickoff', id, human: true });
      expect(paused).toMatchObject({
        ok: true,
        status: 'paused',
        pending: { kind: 'flow', step: 'review', runId: `${id}/review`, path: 'review › approve' },
      });
      const answer = { route: 'ok', step: 'review › approve' };
      const out = await inProcess(provided.spec, log, { op: 'resume', id, human: true, answer });
      expect(out).toMatchObject({ ok: true, status: 'completed', output: { shipped: 'c3' } });
      // The child's steps before its pause ran once, in the first process.
      expect(Object.fromEntries(countRuns(log))).toEqual({ p1: 1, c1: 1, c2: 1, c3: 1, p2: 1 });
      const child = await readHistory(store, `${id}/review`);
      expect(child.checkpoints.map((c) => c.checkpoint)).toEqual(['c1', 'c2', 'approve', 'c3']);
      expect((await store.readRun(`${id}/review`))?.status).toBe('completed');
    }, 120_000);

    it('goes on with a parent killed (SIGKILL) while its child runs, in another process', async () => {
      const log = freshLog();
      const id = `killed-${kind}`;
      const command = { op: 'kickoff', id, human: false, hangAt: 'c2' };
      const last = await inProcess(provided.spec, log, command, (line) => line.event === 'running');
      expect(last).toEqual({ event: 'running', name: 'c2' });
      expect((await store.readRun(id))?.status).toBe('running');
      expect((await store.readRun(`${id}/review`))?.status).toBe('running');

      const out = await inProcess(provided.spec, log, { op: 'resume', id, human: false });
      expect(out).toMatchObject({ ok: true, status: 'completed', output: { shipped: 'c3' } });
      // c2 was in flight when the process died, and ran once more; the finished steps did not.
      expect(Object.fromEntries(countRuns(log))).toEqual({ p1: 1, c1: 1, c2: 2, c3: 1, p2: 1 });
      const parent = await readHistory(store, id);
      expect(parent.checkpoints.map((c) => c.checkpoint)).toEqual(['p1', 'review', 'p2']);
    }, 120_000);
  });
}
