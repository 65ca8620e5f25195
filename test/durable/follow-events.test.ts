import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFlow,
  followEvents,
  MemoryStore,
  readEvents,
  type Store,
  type StoredEvent,
} from '../../src/index.js';
import { chainFlow } from '../fixtures/durable/definitions.js';
import { openStore } from '../fixtures/durable/stores.js';
import { Child, runLogs } from './processes.js';
import { type ProvidedStore, sqliteStore } from './store-specs.js';

const freshLog = runLogs('statecrew-follow-');

/** Follows run `id` into `seen`; `when(test)` resolves once an event passes `test`. */
function follow(store: Store, id: string, options: { after?: number; pollMs?: number } = {}) {
  const seen: StoredEvent[] = [];
  const waiting: { test: (e: StoredEvent) => boolean; resolve: () => void }[] = [];
  const done = (async () => {
    for await (const stored of followEvents(store, id, options)) {
      seen.push(stored);
      for (const w of waiting.filter((w) => w.test(stored))) w.resolve();
    }
  })();
  const when = (test: (e: StoredEvent) => boolean) =>
    seen.some(test) ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ test, resolve }));
  return { seen, done, when };
}

/** A flow whose second step waits until the test lets it go. */
function gatedFlow(store: Store) {
  let release: (value: string) => void = () => {};
  const gate = new Promise<string>((resolve) => (release = resolve));
  const flow = createFlow({ name: 'gated', initialState: {}, store })
    .start('first', () => 'one')
    .listen('second', 'first', () => gate)
    .listen('third', 'second', () => 'three');
  return { flow, release: (value: string) => release(value) };
}

const seqs = (events: StoredEvent[]) => events.map((e) => e.seq);

describe('followEvents', () => {
  it('ends a run followed live without reading its log again once it settled', async () => {
    const store = new MemoryStore();
    const { flow, release } = gatedFlow(store);
    const result = flow.kickoff({ inputs: { id: 'read-once' }, events: 'store' });
    const followers = [0, 1, 2].map(() => follow(store, 'read-once', { pollMs: 600_000 }));
    await Promise.all(followers.map((f) => f.when((e) => e.event.type === 'flow.step')));
    const list = store.list.bind(store);
    const logReads: string[] = [];
    store.list = (collection, id) => {
      if (collection === 'run_events') logReads.push(id);
      return list(collection, id);
    };
    release('two');
    await result;
    await Promise.all(followers.map((f) => f.done));
    const stored = await readEvents(store, 'read-once');
    for (const follower of followers) expect(follower.seen).toEqual(stored);
    // Only the check above read the log: the followers got the end live and read the head alone.
    expect(logReads).toEqual(['read-once']);
  });

  it('follows a run of this process from its start as it publishes, and ends when it settles: each event once, in order', async () => {
    const store = new MemoryStore();
    const { flow, release } = gatedFlow(store);
    const result = flow.kickoff({ inputs: { id: 'live' }, events: 'store' });
    // A poll so slow it never comes: a run of this process is followed as it publishes.
    const noPolling = { pollMs: 600_000 };
    const early = follow(store, 'live', noPolling);
    await early.when((e) => e.event.type === 'flow.step' && e.event.name === 'second');
    // A late follower, after the first three events: the rest, from the store, memory and live.
    const late = follow(store, 'live', { after: 3, ...noPolling });
    release('two');
    await result;
    await Promise.all([early.done, late.done]);
    const stored = await readEvents(store, 'live');
    expect(early.seen).toEqual(stored);
    expect(late.seen).toEqual(stored.slice(3));
    expect(stored.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'completed' });
  });

  it('ends when its signal aborts, while the run goes on', async () => {
    const store = new MemoryStore();
    const { flow, release } = gatedFlow(store);
    const result = flow.kickoff({ inputs: { id: 'left' }, events: 'store' });
    const controller = new AbortController();
    const seen: StoredEvent[] = [];
    for await (const stored of followEvents(store, 'left', { signal: controller.signal, pollMs: 600_000 })) {
      seen.push(stored);
      if (stored.event.type === 'flow.step' && stored.event.name === 'second') controller.abort();
    }
    expect(seen.at(-1)?.event).toMatchObject({ type: 'flow.step', name: 'second', status: 'started' });
    release('two');
    expect((await result).status).toBe('completed');
  });

  it('reads a paused run of no process from the store and ends; a bad option is refused', async () => {
    const store = new MemoryStore();
    const flow = createFlow({ name: 'ask', initialState: {}, store })
      .start('request', () => 'refund')
      .human('approval', 'request', { routes: ['yes', 'no'] });
    expect((await flow.kickoff({ inputs: { id: 'paused' }, events: 'store' })).status).toBe('paused');
    const paused = follow(store, 'paused');
    await paused.done;
    expect(paused.seen).toEqual(await readEvents(store, 'paused'));
    expect(paused.seen.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'paused' });
    const bad = followEvents(store, 'paused', { pollMs: 0 });
    await expect(bad.next()).rejects.toMatchObject({ code: 'invalid_option', details: { option: 'pollMs' } });
  });
});

describe('followEvents across processes', () => {
  let provided: ProvidedStore;
  let store: Store;
  const log = freshLog();

  beforeAll(async () => {
    provided = sqliteStore();
    store = await openStore(provided.spec);
  });

  afterAll(async () => {
    await store?.close();
    await provided?.cleanup();
  });

  it('follows a run another process runs by reading the store, and goes on when this process takes it over', async () => {
    const id = 'followed';
    const child = await Child.start(provided.spec, log);
    child
      .send({ op: 'kickoff', what: 'flow', id, hangAt: 's3', inputs: { topic: 'AI' }, events: 'store' })
      .catch(() => {}); // it is killed
    await child.when((line) => line.event === 'running' && line.name === 's3');
    const follower = follow(store, id, { pollMs: 5 });
    await follower.when(
      (e) => e.event.type === 'flow.step' && e.event.name === 's2' && e.event.status === 'completed',
    );
    await child.kill();
    expect((await chainFlow(store, log).resume(id)).status).toBe('completed');
    await follower.done;
    const stored = await readEvents(store, id);
    expect(follower.seen).toEqual(stored);
    expect(seqs(stored)).toEqual(stored.map((_, i) => i + 1));
  }, 60_000);
});
