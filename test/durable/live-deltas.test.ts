import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  Agent,
  Crew,
  type FollowedEvent,
  followEvents,
  MemoryStore,
  readEvents,
  type Store,
  Task,
} from '../../src/index.js';
import { RunEvents } from '../../src/runtime/run/run-events.js';
import { createScriptedModel, type HeldText, holdText } from '../../src/testing.js';

/** A crew of one task whose model streams `text` as the test releases it. */
function writerCrew(text: HeldText, store: Store) {
  const llm = createScriptedModel([{ chunks: text }]);
  const writer = new Agent({ role: 'Writer', goal: 'write', backstory: 'fluent', llm, stream: true });
  return new Crew({
    name: 'writer',
    store,
    tasks: [new Task({ name: 'draft', description: 'Write', agent: writer })],
  });
}

/** Follows run `id` into `seen`; `when(test)` resolves once an event passes `test`. */
function follow(store: Store, id: string, live: boolean) {
  const seen: FollowedEvent[] = [];
  const waiting: { test: (e: FollowedEvent) => boolean; resolve: () => void }[] = [];
  const done = (async () => {
    for await (const followed of followEvents(store, id, { live })) {
      seen.push(followed);
      for (const w of waiting.filter((w) => w.test(followed))) w.resolve();
    }
  })();
  const when = (test: (e: FollowedEvent) => boolean) =>
    seen.some(test) ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ test, resolve }));
  return { seen, done, when };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('live text deltas of a run that keeps its events', () => {
  it('reach a live follower in order among the kept events, numbered after the last kept one', async () => {
    const store = new MemoryStore();
    const text = holdText(['Hel', 'lo']);
    const run = writerCrew(text, store).run({ executionId: 'live-1', events: 'store' });
    const live = follow(store, 'live-1', true);
    const kept = follow(store, 'live-1', false);
    await live.when((e) => e.event.type === 'node.started');
    text.release();
    await live.when((e) => e.event.type === 'model.delta');
    expect(live.seen.some((e) => e.event.type === 'node.completed')).toBe(false);
    text.releaseAll();
    expect((await run.result).raw).toBe('Hello');
    await Promise.all([live.done, kept.done]);
    const stored = await readEvents(store, 'live-1');
    const deltas = live.seen.filter((e) => e.live === true);
    expect(deltas.map((e) => e.event.type === 'model.delta' && e.event.delta)).toEqual(['Hel', 'lo']);
    // Without the deltas, the live follower saw exactly what is stored, as the other follower did.
    expect(live.seen.filter((e) => e.live !== true)).toEqual(stored);
    expect(kept.seen).toEqual(stored);
    expect(stored.some(({ event }) => event.type === 'model.delta')).toBe(false);
    for (const delta of deltas) {
      const before = live.seen.slice(0, live.seen.indexOf(delta)).filter((e) => e.live !== true);
      expect(delta.seq).toBe(before.at(-1)?.seq);
    }
  });

  it('are not built for a run that keeps its events but has no live follower', async () => {
    const emit = vi.spyOn(RunEvents.prototype, 'emit');
    const store = new MemoryStore();
    const text = holdText(['Hel', 'lo']);
    text.releaseAll();
    const kept = follow(store, 'quiet-1', false);
    const out = await writerCrew(text, store).kickoff({ executionId: 'quiet-1', events: 'store' });
    await kept.done;
    expect(out.raw).toBe('Hello');
    const types = emit.mock.calls.map(([event]) => event.type);
    expect(types).toContain('node.completed');
    expect(types).not.toContain('model.delta');
    expect(kept.seen.length).toBeGreaterThan(0);
  });
});
