import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, type Store, Task } from '../../src/index.js';
import { PostgresStore } from '../../src/stores/postgres.js';
import { RedisStore } from '../../src/stores/redis.js';
import { freePort, kill, redisServer, startProxy } from './servers.js';
import { postgresStore, services } from './store-specs.js';

const root = mkdtempSync(join(tmpdir(), 'statecrew-cuts-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
if (!services) console.log('Store cut tests skipped: STATECREW_NO_SERVICES=1');

/** Six steps in a chain; `s3` cuts the store's connection while it runs (`cut` once only). */
function chain(store: Store, ran: string[], cut: () => void = () => {}) {
  let flow = createFlow({ name: 'cut', initialState: {}, store });
  for (const [i, name] of ['s1', 's2', 's3', 's4', 's5', 's6'].entries()) {
    const body = () => {
      ran.push(name);
      if (name === 's3') cut();
      return name;
    };
    flow = i === 0 ? flow.start(name, body) : flow.listen(name, `s${i}`, body);
  }
  return flow;
}

/** Six tasks in a chain; `t3`'s model call cuts the store's connection. */
function crew(store: Store, ran: string[], cut: () => void = () => {}) {
  const llm = (prompt: string) => {
    const task = (prompt.split('\n').find((l) => l.startsWith('Task: ')) ?? '').slice(6);
    ran.push(task);
    if (task === 't3') cut();
    return task;
  };
  const agent = new Agent({ role: 'W', llm });
  const tasks = ['t1', 't2', 't3', 't4', 't5', 't6'].map((t) => new Task({ name: t, description: t, agent }));
  return new Crew({ name: 'cut', tasks, store });
}

describe.skipIf(!services)('a store cut in the middle of a run', () => {
  it('PostgreSQL behind a proxy that is cut: nothing starts after the failed write; resume finishes', async () => {
    const provided = postgresStore();
    const { url, schema } = provided.spec as { url: string; schema: string };
    const proxy = await startProxy(5432);
    const through = new PostgresStore({
      connectionString: url.replace(':5432', `:${proxy.port}`),
      schema,
      connectTimeoutMs: 1000,
    });
    const direct = new PostgresStore({ connectionString: url, schema });
    try {
      const ran: string[] = [];
      const flowError = await chain(through, ran, proxy.cut)
        .kickoff({ inputs: { id: 'pg-flow' } })
        .catch((e: unknown) => e);
      expect(flowError).toMatchObject({ code: 'store_unavailable' });
      expect(ran).toEqual(['s1', 's2', 's3']);
      expect((await chain(direct, ran).resume('pg-flow')).status).toBe('completed');
      expect(ran).toEqual(['s1', 's2', 's3', 's3', 's4', 's5', 's6']);
    } finally {
      await proxy.close();
      await through.close();
      await direct.close();
      await provided.cleanup();
    }
  }, 60_000);

  it('PostgreSQL cut under a crew: it stops at the failed write; resume runs the task in flight again', async () => {
    const provided = postgresStore();
    const { url, schema } = provided.spec as { url: string; schema: string };
    const proxy = await startProxy(5432);
    const through = new PostgresStore({
      connectionString: url.replace(':5432', `:${proxy.port}`),
      schema,
      connectTimeoutMs: 1000,
    });
    const direct = new PostgresStore({ connectionString: url, schema });
    try {
      const ran: string[] = [];
      const error = await crew(through, ran, proxy.cut)
        .kickoff({ executionId: 'pg-crew' })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'store_unavailable' });
      expect(ran).toEqual(['t1', 't2', 't3']);
      const out = await crew(direct, ran).resume('pg-crew');
      expect(out.status).toBe('completed');
      expect(ran).toEqual(['t1', 't2', 't3', 't3', 't4', 't5', 't6']);
    } finally {
      await proxy.close();
      await through.close();
      await direct.close();
      await provided.cleanup();
    }
  }, 60_000);

  it('Redis killed: nothing starts after the failed write; with the server back, resume finishes', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(root, 'redis-'));
    let server = await redisServer(port, dir);
    const url = `redis://127.0.0.1:${port}`;
    const first = new RedisStore({ url, prefix: 'cut', connectTimeoutMs: 1000 });
    try {
      const ran: string[] = [];
      let killing: Promise<void> = Promise.resolve();
      const cut = () => {
        killing = kill(server);
      };
      const error = await chain(first, ran, cut)
        .kickoff({ inputs: { id: 'redis-flow' } })
        .catch((e: unknown) => e);
      await killing;
      expect(error).toMatchObject({ code: 'store_unavailable' });
      expect(ran).toEqual(['s1', 's2', 's3']);
      server = await redisServer(port, dir);
      const again = new RedisStore({ url, prefix: 'cut' });
      try {
        expect((await chain(again, ran).resume('redis-flow')).status).toBe('completed');
        expect(ran).toEqual(['s1', 's2', 's3', 's3', 's4', 's5', 's6']);
      } finally {
        await again.close();
      }
    } finally {
      await first.close();
      await kill(server);
    }
  }, 60_000);
});
