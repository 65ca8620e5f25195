import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Agent,
  Crew,
  createFlow,
  createResultsTool,
  type MemoryEntry,
  MemoryStore,
  type Store,
  Task,
} from '../../src/index.js';
import { threadRuns } from '../../src/runtime/durable/threads.js';
import { createScriptedModel } from '../../src/testing.js';
import { type ProvidedStore, services, storeKinds } from '../durable/store-specs.js';
import { openStore } from '../fixtures/durable/stores.js';
import { taskLine } from '../helpers.js';
import { codeOf } from '../store-helpers.js';

if (!services) console.log('PostgreSQL and Redis cases skipped: STATECREW_NO_SERVICES=1');

/** A chat flow: each run counts a turn and keeps what was said, on top of the state it starts from. */
function chatFlow(store: Store, name = 'chat') {
  return createFlow({ name, store, initialState: { turns: 0, said: [] as string[], message: '' } }).start(
    'reply',
    ({ state }) => {
      state.turns += 1;
      state.said = [...state.said, state.message];
      return `turn ${state.turns}`;
    },
  );
}

/** A flow that pauses for a human at once. */
function askingFlow(store: Store) {
  return createFlow({ name: 'chat', store, initialState: { turns: 0 } })
    .start('ask', ({ state }) => {
      state.turns += 1;
      return 'asked';
    })
    .human('approve', 'ask', { routes: ['yes', 'no'] });
}

/** A crew whose `recall` task calls the results tool and answers with what it got. */
function recallingCrew(store: Store): Crew {
  const llm = createScriptedModel((request) => {
    const task = taskLine(request.prompt).slice('Task: '.length);
    if (task !== 'recall') return `${task} by ${request.agent}`;
    const seen = request.messages.find((m) => m.role === 'tool');
    if (seen === undefined)
      return { text: '', toolCalls: [{ id: 'r1', name: 'results', args: { last: 10 } }] };
    return { text: seen.content };
  });
  const writer = new Agent({ role: 'Writer', llm });
  const editor = new Agent({ role: 'Editor', llm, tools: [createResultsTool()] });
  const tasks = [
    new Task({ name: 'note', description: 'note', agent: writer }),
    new Task({ name: 'recall', description: 'recall', agent: editor }),
  ];
  return new Crew({ name: 'notes', tasks, memory: true, store });
}

const kinds: [string, () => ProvidedStore | undefined][] = [['memory', () => undefined], ...storeKinds()];

for (const [kind, provide] of kinds) {
  describe(`threads on ${kind}`, () => {
    let provided: ProvidedStore | undefined;
    let store: Store;

    beforeAll(async () => {
      provided = provide();
      store = provided === undefined ? new MemoryStore() : await openStore(provided.spec);
    }, 60_000);

    afterAll(async () => {
      await store?.close();
      await provided?.cleanup();
    });

    it('carries a flow state from run to run, each a new run, listed in order by listRuns({ thread })', async () => {
      const flow = chatFlow(store);
      const first = await flow.kickoff({ thread: 't-carry', inputs: { message: 'hi' } });
      const second = await flow.kickoff({ thread: 't-carry', inputs: { message: 'how are you' } });
      const third = await flow.kickoff({ thread: 't-carry', inputs: { message: 'bye', id: 'chosen-id' } });
      expect([first.state.turns, second.state.turns, third.state.turns]).toEqual([1, 2, 3]);
      expect(third.state.said).toEqual(['hi', 'how are you', 'bye']);
      expect(new Set([first.id, second.id, third.id]).size).toBe(3);
      expect(third.id).toBe('chosen-id');
      expect(third.state.id).toBe('chosen-id');
      expect([first.thread, second.thread, third.thread]).toEqual(['t-carry', 't-carry', 't-carry']);
      const listed = await store.listRuns({ thread: 't-carry' });
      expect(listed.map((h) => h.id)).toEqual([first.id, second.id, 'chosen-id']);
      expect(listed.map((h) => (h.data as { thread?: string }).thread)).toEqual([
        't-carry',
        't-carry',
        't-carry',
      ]);
      expect((await store.listRuns({ thread: 't-carry', page: { limit: 2 } })).map((h) => h.id)).toEqual([
        'chosen-id',
        second.id,
      ]);
      expect(await store.listRuns({ thread: 't-carry', name: 'other' })).toEqual([]);
      expect((await threadRuns(store, 't-carry')).map((h) => h.id)).toEqual([
        first.id,
        second.id,
        'chosen-id',
      ]);
      // A kickoff on no thread, or on another, starts from the flow's initial state.
      expect((await flow.kickoff({ inputs: { message: 'x' } })).state.turns).toBe(1);
      expect((await flow.kickoff({ thread: 't-other', inputs: { message: 'x' } })).state.turns).toBe(1);
    });

    it('refuses a kickoff while the thread’s latest run is paused (thread_busy), and goes on once it settled', async () => {
      const flow = askingFlow(store);
      const paused = await flow.kickoff({ thread: 't-paused' });
      expect(paused.status).toBe('paused');
      const refused = await flow.kickoff({ thread: 't-paused' }).catch((error: unknown) => error);
      expect(refused).toMatchObject({
        code: 'thread_busy',
        details: { thread: 't-paused', runId: paused.id, status: 'paused' },
      });
      await flow.resume(paused.id, { route: 'no' });
      const next = await flow.kickoff({ thread: 't-paused' });
      expect(next.state.turns).toBe(2);
      expect((await store.listRuns({ thread: 't-paused' })).map((h) => h.id)).toEqual([paused.id, next.id]);
    });

    it('refuses another flow’s run on the thread (flow_mismatch), a bad thread name and a missing store', async () => {
      await chatFlow(store, 'first-flow').kickoff({ thread: 't-mixed', inputs: { message: 'a' } });
      expect(await codeOf(chatFlow(store, 'second-flow').kickoff({ thread: 't-mixed' }))).toBe(
        'flow_mismatch',
      );
      // The refused kickoff left the thread free: the right flow goes on at once.
      const next = await chatFlow(store, 'first-flow').kickoff({
        thread: 't-mixed',
        inputs: { message: 'b' },
      });
      expect(next.state.said).toEqual(['a', 'b']);
      expect(await codeOf(chatFlow(store).kickoff({ thread: '' }))).toBe('invalid_option');
      expect(await codeOf(chatFlow(store).kickoff({ thread: 'a\u0000b' }))).toBe('invalid_option');
      expect(await codeOf(chatFlow(store).kickoff({ thread: 'x'.repeat(513) }))).toBe('invalid_option');
      const unstored = createFlow({ name: 'loose', initialState: {} }).start('s', () => 1);
      expect(await codeOf(unstored.kickoff({ thread: 't-loose' }))).toBe('store_required');
      expect(await codeOf(Promise.resolve().then(() => chatFlow(store).run({ thread: 't' })))).toBe(
        'invalid_option',
      );
    });

    it('shows a threaded crew run the results of the thread’s earlier runs in its memory, oldest first', async () => {
      const crew = recallingCrew(store);
      const first = await crew.kickoff({ thread: 't-crew', executionId: `c1-${kind}` });
      expect(first.metadata.thread).toBe('t-crew');
      expect((JSON.parse(first.raw) as MemoryEntry[]).map((e) => [e.runId, e.nodeId])).toEqual([
        [undefined, 'note'],
      ]);
      const second = await crew.kickoff({ thread: 't-crew', executionId: `c2-${kind}` });
      const seen = JSON.parse(second.raw) as MemoryEntry[];
      expect(seen.map((e) => [e.runId, e.nodeId])).toEqual([
        [`c1-${kind}`, 'note'],
        [`c1-${kind}`, 'recall'],
        [undefined, 'note'],
      ]);
      expect(seen[0]).toMatchObject({ task: 'note', agent: 'Writer', raw: 'note by Writer' });
      const listed = await store.listRuns({ thread: 't-crew' });
      expect(listed.map((h) => [h.id, h.kind])).toEqual([
        [`c1-${kind}`, 'crew'],
        [`c2-${kind}`, 'crew'],
      ]);
      // A crew on no thread sees only its own run.
      const alone = JSON.parse((await crew.kickoff()).raw) as MemoryEntry[];
      expect(alone.map((e) => e.nodeId)).toEqual(['note']);
      const agent = new Agent({ role: 'Writer', llm: createScriptedModel(['x']) });
      const unstored = new Crew({ tasks: [new Task({ description: 'd', agent })] });
      expect(await codeOf(unstored.kickoff({ thread: 't' }))).toBe('store_required');
      expect(await codeOf(crew.kickoff({ thread: '' }))).toBe('invalid_option');
    });

    it('prunes with keepHistory: the runs stay, their history readable, only their kept events dropped', async () => {
      const flow = chatFlow(store, 'pruned');
      const kept = await flow.kickoff({ thread: 't-prune', inputs: { message: 'one' }, events: 'store' });
      const events = () => store.list('run_events', kept.id);
      expect((await events()).length).toBeGreaterThan(0);
      const later = Date.now() + 60_000;
      const pruned = await store.pruneRuns?.({
        olderThan: later,
        statuses: ['completed'],
        keepHistory: true,
      });
      expect(pruned?.pruned).toContain(kept.id);
      expect(await events()).toEqual([]);
      expect((await store.readRun(kept.id))?.status).toBe('completed');
      expect((await store.list('flow_runs', kept.id)).length).toBeGreaterThan(0);
      expect((await flow.getRun(kept.id))?.state).toMatchObject({ turns: 1 });
      // The thread goes on from it.
      const next = await flow.kickoff({ thread: 't-prune', inputs: { message: 'two' } });
      expect(next.state.said).toEqual(['one', 'two']);
      // Pruned for good, a run leaves its thread entry; the thread goes on from the latest run left
      // (a kickoff a minute on: an entry without a head younger than a lease may be a run starting).
      const minuteOn = { clock: () => Date.now() + 60_000 };
      await store.prune({ olderThan: later, statuses: ['completed'] });
      expect(await store.listRuns({ thread: 't-prune' })).toEqual([]);
      expect((await store.list('run_threads', 't-prune')).length).toBe(2);
      const fresh = await flow.kickoff({ thread: 't-prune', inputs: { message: 'three' }, ...minuteOn });
      expect(fresh.state.said).toEqual(['three']);
    });
  });
}
