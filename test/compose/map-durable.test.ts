import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/index.js';
import { countRuns, runLogs } from '../durable/processes.js';
import { type ProvidedStore, storeKinds } from '../durable/store-specs.js';
import { MAP_DOCS, mapCrewsFlow } from '../fixtures/compose/map-crews.js';
import { openStore, type StoreSpec } from '../fixtures/durable/stores.js';

const script = fileURLToPath(new URL('../fixtures/compose/map-crash.ts', import.meta.url));
const freshLog = runLogs('statecrew-map-');

/**
 * Starts run `id` in a child process, waits (through its output lines) until `k` items completed,
 * and kills it with SIGKILL; resolves with the items it said completed.
 */
async function runAndKill(spec: StoreSpec, log: string, id: string, k: number): Promise<string[]> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', script, JSON.stringify(spec), log, id, String(k)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const completed: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const parsed = JSON.parse(line) as { event: string; itemId?: string };
        if (parsed.event === 'item' && parsed.itemId !== undefined) completed.push(parsed.itemId);
        if (completed.length >= k) resolve();
      }
    });
    void exited.then(() => reject(new Error(`the child exited before ${k} items completed: ${stderr}`)));
  });
  child.kill('SIGKILL');
  await exited;
  return completed;
}

for (const [kind, provide] of storeKinds()) {
  describe(`a map of crews killed mid-map, on ${kind}`, () => {
    let provided: ProvidedStore;
    let store: Store;

    beforeEach(async () => {
      provided = provide();
      store = await openStore(provided.spec);
    });

    afterEach(async () => {
      await store.close();
      await provided.cleanup();
    });

    it('is resumed by another process: each finished item ran once, the output has every item in order', {
      timeout: 120_000,
    }, async () => {
      const log = freshLog();
      const k = 4;
      const completed = await runAndKill(provided.spec, log, 'map-1', k);
      // Two items run at once: they may complete in either order.
      expect([...completed].sort()).toEqual(MAP_DOCS.slice(0, k));
      const before = countRuns(log);
      expect([...before.keys()].sort()).toEqual(MAP_DOCS.slice(0, k));
      const started: string[] = [];
      const out = await mapCrewsFlow(store, log).resume('map-1', undefined, {
        onRun: (run) =>
          run.events$.subscribe((e) => {
            if (e.type === 'flow.item' && e.status === 'started') started.push(e.itemId);
          }),
      });
      // The items found finished are not announced again.
      expect(started).toEqual(MAP_DOCS.slice(k));
      expect(out.status).toBe('completed');
      expect(out.outputs.count).toBe(MAP_DOCS.length);
      const results = out.outputs.summaries as { itemId: string; status: string; output: { raw: string } }[];
      expect(results.map((r) => [r.itemId, r.status, r.output.raw])).toEqual(
        MAP_DOCS.map((doc) => [doc, 'completed', `summary of ${doc}`]),
      );
      // Every item's model call happened exactly once across both processes.
      const calls = countRuns(log);
      expect(MAP_DOCS.map((doc) => calls.get(doc))).toEqual(MAP_DOCS.map(() => 1));
      // The items the killed process was running went on with their stored crew runs.
      for (const doc of MAP_DOCS) {
        expect(await store.readRun(`map-1/summaries/${doc}`)).toMatchObject({
          status: 'completed',
          lease: null,
        });
      }
    });
  });
}
