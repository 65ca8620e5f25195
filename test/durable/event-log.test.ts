import { describe, expect, it } from 'vitest';
import {
  Agent,
  Crew,
  createFlow,
  MemoryStore,
  readEvents,
  type StatecrewEvent,
  type Store,
  type StoredEvent,
  Task,
} from '../../src/index.js';
import { EventJournal } from '../../src/runtime/durable/event-journal.js';
import type { RunCommit } from '../../src/stores/store.js';
import { createScriptedModel } from '../../src/testing.js';
import { codeOf, wrapStore } from '../store-helpers.js';
import { Child, runLogs, storeAndTwoChildren } from './processes.js';
import { type ProvidedStore, storeKinds } from './store-specs.js';

const freshLog = runLogs('statecrew-event-log-');

/** An event as a store gives it back: its JSON. */
const asJson = (event: StatecrewEvent) => JSON.parse(JSON.stringify(event)) as StatecrewEvent;

/** A text long enough to be stored once. */
const LONG = `${'A finding worth keeping. '.repeat(20)}`;

/** Two tasks: the first answers LONG, which the second reads as its context. */
function researchCrew(store: Store) {
  const llm = createScriptedModel((request) => (request.prompt.includes('Task: research') ? LONG : 'short'));
  const agent = new Agent({ role: 'Researcher', llm });
  const research = new Task({ name: 'research', description: 'research {topic}', agent });
  return new Crew({
    name: 'research',
    store,
    tasks: [
      research,
      new Task({ name: 'write', description: 'write about {topic}', agent, context: [research] }),
    ],
  });
}

/** request → a human approval → done. */
function approvalFlow(store: Store) {
  return createFlow({ name: 'approval', initialState: { amount: 120 }, store })
    .start('request', ({ state }) => `refund ${state.amount}`)
    .human('approval', 'request', { routes: ['approved', 'rejected'] })
    .listen('pay', 'approved', () => 'paid');
}

/** A store that counts its commits. */
function countingStore(store: Store): { store: Store; commits: RunCommit[] } {
  const commits: RunCommit[] = [];
  const counted = wrapStore(store, {
    commit: (id, commit) => {
      commits.push(commit);
      return store.commit(id, commit);
    },
  });
  return { store: counted, commits };
}

const seqs = (events: StoredEvent[]) => events.map((e) => e.seq);
const numbered = (count: number, from = 1) => Array.from({ length: count }, (_, i) => from + i);

describe('a run that keeps its events (events: store)', () => {
  it('reads back every event events$ showed, numbered in order, in as many commits as without', async () => {
    const kept = countingStore(new MemoryStore());
    const crew = researchCrew(kept.store);
    const run = crew.run({ inputs: { topic: 'queues' }, executionId: 'kept', events: 'store' });
    const seen: StatecrewEvent[] = [];
    run.events$.subscribe((event) => seen.push(event));
    await run.result;
    const stored = await readEvents(kept.store, 'kept');
    expect(seqs(stored)).toEqual(numbered(seen.length));
    expect(stored.map((e) => e.event)).toEqual(seen.map(asJson));
    expect(stored.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'completed' });

    const plain = countingStore(new MemoryStore());
    await researchCrew(plain.store).kickoff({ inputs: { topic: 'queues' }, executionId: 'plain' });
    expect(kept.commits.length).toBe(plain.commits.length);
    expect(await plain.store.list('run_events', 'plain')).toEqual([]);
    // Every event rode in a commit of the run's own records.
    const eventWrites = kept.commits.flatMap((c) => c.writes.filter((w) => w.collection === 'run_events'));
    expect(eventWrites).toHaveLength(seen.length);
    for (const commit of kept.commits.filter((c) => c.writes.some((w) => w.collection === 'run_events')))
      expect(commit.writes.some((w) => w.collection !== 'run_events') || commit.release === true).toBe(true);
  });

  it('stores a long text once: a later event that repeats it points to the first, and reads back whole', async () => {
    const store = new MemoryStore();
    await researchCrew(store).kickoff({ inputs: { topic: 'queues' }, executionId: 'texts', events: 'store' });
    const raw = (await store.list('run_events', 'texts')).map((r) => JSON.stringify(r.value));
    expect(raw.filter((text) => text.includes(LONG))).toHaveLength(1);
    expect(raw.some((text) => text.includes('$statecrew.same'))).toBe(true);
    const events = (await readEvents(store, 'texts')).map((e) => e.event);
    const completed = events.filter((e) => e.type === 'node.completed');
    expect(completed.map((e) => (e.type === 'node.completed' ? e.output.raw : ''))).toEqual([LONG, 'short']);
    const writeStarted = events.find((e) => e.type === 'node.started' && e.name === 'write');
    expect(writeStarted).toMatchObject({ context: expect.stringContaining(LONG) });
  });

  it('goes on numbering after a pause: the resumed segment follows, and `after` reads only what is new', async () => {
    const store = new MemoryStore();
    const flow = approvalFlow(store);
    const paused = await flow.kickoff({ inputs: { id: 'refund-1' }, events: 'store' });
    expect(paused.status).toBe('paused');
    const first = await readEvents(store, 'refund-1');
    expect(first.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'paused' });
    expect(first.map((e) => e.event.type)).toContain('flow.paused');
    // The run keeps its events when resumed without being told again.
    await flow.resume('refund-1', { route: 'approved' });
    const all = await readEvents(store, 'refund-1');
    expect(seqs(all)).toEqual(numbered(all.length));
    const later = await readEvents(store, 'refund-1', { after: first.length });
    expect(later).toEqual(all.slice(first.length));
    expect(later[0]?.event.type).toBe('run.started');
    expect(later.map((e) => e.event.type)).toContain('flow.resumed');
    expect(later.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'completed' });
  });

  it('keeps an aborted run’s last event (run.failed, aborted) with the run’s end', async () => {
    const store = new MemoryStore();
    const controller = new AbortController();
    const flow = createFlow({ name: 'slow', initialState: {}, store })
      .start('first', () => 'one')
      .listen('second', 'first', ({ signal }) => {
        controller.abort();
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      });
    const rejected = flow.kickoff({ inputs: { id: 'cut' }, signal: controller.signal, events: 'store' });
    expect(await codeOf(rejected)).toBe('aborted');
    const events = await readEvents(store, 'cut');
    expect(events.at(-1)?.event).toMatchObject({ type: 'run.failed', code: 'aborted' });
    expect(seqs(events)).toEqual(numbered(events.length));
  });

  it('writes a step output JSON cannot carry as JSON shows it, and the run goes on', async () => {
    const store = new MemoryStore();
    const circular: Record<string, unknown> = { big: 12n };
    circular.self = circular;
    const flow = createFlow({ name: 'odd', initialState: {}, store }).start('odd', () => circular);
    expect((await flow.kickoff({ inputs: { id: 'odd' }, events: 'store' })).status).toBe('completed');
    const step = (await readEvents(store, 'odd')).find(
      (e) => e.event.type === 'flow.step' && e.event.status === 'completed',
    );
    expect(step?.event).toMatchObject({ output: { big: '12', self: '[circular]' } });
  });

  it('gives a claim back when the store cannot say where the log stands: the run stays paused, and resumes later', async () => {
    const memory = new MemoryStore();
    await approvalFlow(memory).kickoff({ inputs: { id: 'stuck' }, events: 'store' });
    let failing = true;
    const flaky = wrapStore(memory, {
      list: (collection, id) =>
        failing && collection === 'run_events'
          ? Promise.reject(new Error('connection reset'))
          : memory.list(collection, id),
    });
    expect(await codeOf(approvalFlow(flaky).resume('stuck', { route: 'approved' }))).toBe(
      'store_unavailable',
    );
    expect(await memory.readRun('stuck')).toMatchObject({ status: 'paused', lease: null });
    failing = false;
    expect((await approvalFlow(flaky).resume('stuck', { route: 'approved' })).status).toBe('completed');
    const events = await readEvents(memory, 'stuck');
    expect(seqs(events)).toEqual(numbered(events.length));
  });

  it('loses only the events of a write the store failed: the run goes on (onStoreError continue), later events read back whole', async () => {
    const memory = new MemoryStore();
    let failed = false;
    const flaky = wrapStore(memory, {
      commit: (id, commit) => {
        if (!failed && commit.writes.some((w) => w.collection === 'crew_task_results')) {
          failed = true;
          return Promise.reject(new Error('disk full'));
        }
        return memory.commit(id, commit);
      },
    });
    const crew = researchCrew(flaky);
    const run = crew.run({
      inputs: { topic: 'queues' },
      executionId: 'lossy',
      events: 'store',
      onStoreError: 'continue',
    });
    const seen: StatecrewEvent[] = [];
    run.events$.subscribe((event) => seen.push(event));
    expect((await run.result).status).toBe('completed');
    const stored = await readEvents(memory, 'lossy');
    const json = seen.map(asJson);
    // What landed is what events$ showed, in order, with the failed commit's events missing.
    expect(stored.length).toBeLessThan(seen.length);
    for (const { seq, event } of stored) expect(event).toEqual(json[seq - 1]);
    expect(JSON.stringify(stored)).not.toContain('$statecrew.same');
    expect(stored.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'completed' });
  });

  it('is removed with its run by prune', async () => {
    const store = new MemoryStore();
    await approvalFlow(store).kickoff({ inputs: { id: 'old' }, events: 'store' });
    await approvalFlow(store).resume('old', { route: 'rejected' });
    expect((await readEvents(store, 'old')).length).toBeGreaterThan(0);
    expect(await store.prune({ olderThan: Date.now() + 1000 })).toEqual(['old']);
    expect(await readEvents(store, 'old')).toEqual([]);
  });

  it('refuses an events option other than store, and a bad `after`, naming them', async () => {
    const store = new MemoryStore();
    const flow = approvalFlow(store);
    expect(() => flow.run({ inputs: { id: 'x' }, events: 'memory' as 'store' })).toThrow(/option "events"/);
    await expect(researchCrew(store).kickoff({ events: 'all' as 'store' })).rejects.toMatchObject({
      code: 'invalid_option',
      details: { option: 'events' },
    });
    await expect(readEvents(store, 'x', { after: -1 })).rejects.toMatchObject({
      code: 'invalid_option',
      details: { option: 'after' },
    });
  });
});

for (const [kind, provide] of storeKinds()) {
  describe(`kept events on ${kind}`, () => {
    let provided: ProvidedStore;
    let store: Store;
    let second: Child;
    let third: Child;
    const log = freshLog();
    storeAndTwoChildren(provide, log, (made) => {
      ({ provided, store, second, third } = made);
    });

    it('keeps one log of a flow killed mid-step and resumed by two processes at once: in order, nothing twice', async () => {
      const id = `log-flow-${kind}`;
      const first = await Child.start(provided.spec, log);
      first
        .send({ op: 'kickoff', what: 'flow', id, hangAt: 's3', inputs: { topic: 'AI' }, events: 'store' })
        .catch(() => {}); // it is killed
      await first.when((line) => line.event === 'running' && line.name === 's3');
      await first.kill();
      const before = await readEvents(store, id);
      const stepsDone = (events: StoredEvent[]) =>
        events.flatMap(({ event }) =>
          event.type === 'flow.step' && event.status === 'completed' ? [event.name] : [],
        );
      // Each step's event landed with its record, in the same commit.
      expect(stepsDone(before)).toEqual(['s1', 's2']);
      const command = { op: 'resume', what: 'flow', id };
      const replies = await Promise.all([second.send(command), third.send(command)]);
      // One ran it; the other was refused (run_locked) or found it done, having run nothing.
      for (const reply of replies)
        expect(reply.ok ? reply.status : reply.code, JSON.stringify(replies)).toMatch(
          /^(completed|run_locked)$/,
        );
      const events = await readEvents(store, id);
      expect(seqs(events)).toEqual(numbered(events.length));
      expect(events.slice(0, before.length)).toEqual(before);
      expect(stepsDone(events)).toEqual(['s1', 's2', 's3', 's4', 's5', 's6']);
      expect(events.filter((e) => e.event.type === 'run.completed')).toHaveLength(1);
      expect(events.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'completed' });
    }, 60_000);

    it('keeps a crew’s log across a killed process: the resumed run goes on from the last stored event', async () => {
      const id = `log-crew-${kind}`;
      const first = await Child.start(provided.spec, log);
      first
        .send({ op: 'kickoff', what: 'crew', id, hangAt: 't4', inputs: { topic: 'AI' }, events: 'store' })
        .catch(() => {});
      await first.when((line) => line.event === 'running' && line.name === 't4');
      await first.kill();
      // Each task's node.completed landed with its record, in the same commit.
      const completedOf = (events: StoredEvent[]) =>
        events.flatMap(({ event }) => (event.type === 'node.completed' ? [event.nodeId] : []));
      const before = await readEvents(store, id);
      expect(completedOf(before)).toEqual(['t1', 't2', 't3']);
      expect(await second.send({ op: 'resume', what: 'crew', id })).toMatchObject({
        ok: true,
        status: 'completed',
      });
      const events = await readEvents(store, id);
      expect(seqs(events)).toEqual(numbered(events.length));
      expect(events.slice(0, before.length)).toEqual(before);
      // The resumed segment announces the restored tasks again, then runs the rest; each model call once.
      expect(completedOf(events.slice(before.length))).toEqual(['t1', 't2', 't3', 't4', 't5', 't6']);
      const calls = events.flatMap(({ event }) => (event.type === 'model.call' ? [event.nodeId] : []));
      expect(calls).toEqual(['t1', 't2', 't3', 't4', 't5', 't6']);
      expect(events.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'completed' });
    }, 60_000);
  });
}

describe('the journal of kept events', () => {
  const event = (text: string, n: number) =>
    ({ type: 'flow.route', router: text, label: `l${n}`, runId: 'r', at: n }) as StatecrewEvent;

  it('points only to texts whose commit landed: a lost commit’s text is written again', () => {
    const journal = new EventJournal(0);
    journal.take(event(LONG, 1));
    const lost = journal.drain();
    journal.landed(false);
    journal.take(event(LONG, 2));
    const landed = journal.drain();
    journal.landed(true);
    journal.take(event(LONG, 3));
    const pointing = journal.drain();
    expect(lost.map((w) => w.key)).toEqual(['000000000001']);
    expect(landed[0]?.value).toMatchObject({ router: LONG });
    expect(pointing[0]?.value).toMatchObject({ router: { '$statecrew.same': [2, 'router'] } });
  });
});
