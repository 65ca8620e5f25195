import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chainCrew, richStateFlow } from '../fixtures/durable/definitions.js';
import { openStore } from '../fixtures/durable/stores.js';
import { Child, countRuns } from './processes.js';
import { storeKinds } from './store-specs.js';

const root = mkdtempSync(join(tmpdir(), 'statecrew-round-trip-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

for (const [kind, provide] of storeKinds()) {
  describe(`runs kept whole on ${kind}`, () => {
    it('brings Date, Map, Set, BigInt, undefined, NaN, Infinity, shared and circular values back in a fresh process', async () => {
      const provided = provide();
      const log = join(root, `rich-${kind}`);
      const child = await Child.start(provided.spec, log);
      const store = await openStore(provided.spec);
      try {
        expect(await child.send({ op: 'kickoff', what: 'rich', id: 'rich' })).toMatchObject({
          status: 'paused',
        });
        await child.close();
        const out = await richStateFlow(store).resume('rich', { route: 'ok' });
        expect(out.status).toBe('completed');
        const state = out.state as Record<string, unknown>;
        expect(state.when).toEqual(new Date('2026-12-02T10:00:00.000Z'));
        expect(state.byName).toEqual(
          new Map<string, unknown>([
            ['a', 1],
            ['b', { label: 'shared' }],
          ]),
        );
        expect(state.tags).toEqual(new Set(['x', 'y']));
        expect(state.big).toBe(12345678901234567890n);
        expect('missing' in state && state.missing === undefined).toBe(true);
        expect(state.notANumber).toBeNaN();
        expect(state.far).toBe(Number.POSITIVE_INFINITY);
        expect(state.one).toBe(state.two); // one object, as it was
        expect((state.byName as Map<string, unknown>).get('b')).toBe(state.one);
        const node = state.node as { self: unknown };
        expect(node.self).toBe(node);
        expect(out.outputs.fill).toEqual(new Map([['out', 1n]]));
        expect(out.outputs.done).toBe(2);
      } finally {
        await store.close();
        await provided.cleanup();
      }
    }, 60_000);

    it('resumes an aborted crew in a fresh process with the inputs it was started with', async () => {
      const provided = provide();
      const log = join(root, `inputs-${kind}`);
      const store = await openStore(provided.spec);
      try {
        const controller = new AbortController();
        const crew = chainCrew(store, log);
        const run = crew.run({ executionId: 'inputs', inputs: { topic: 'AI' }, signal: controller.signal });
        run.events$.subscribe((event) => {
          if (event.type === 'node.started' && event.nodeId === 't2') controller.abort('stop');
        });
        await expect(run.result).rejects.toMatchObject({ code: 'aborted' });
        const child = await Child.start(provided.spec, log);
        const reply = await child.send({ op: 'resume', what: 'crew', id: 'inputs' });
        await child.close();
        expect(reply).toMatchObject({ ok: true, status: 'completed', restored: ['t1'] });
        const runs = countRuns(log);
        // t2 was aborted as it started; the resumed run asked it with the stored inputs.
        expect(['t1', 't2', 't3', 't4', 't5', 't6'].map((t) => runs.get(`${t} on AI`))).toEqual([
          1, 1, 1, 1, 1, 1,
        ]);
        expect([...runs.keys()].filter((line) => line.includes('{topic}'))).toEqual([]);
      } finally {
        await store.close();
        await provided.cleanup();
      }
    }, 60_000);
  });
}
