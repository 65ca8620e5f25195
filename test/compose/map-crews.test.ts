import { describe, expect, it } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { z } from 'zod';
import {
  Agent,
  Crew,
  createFlow,
  defineTool,
  failed,
  isStatecrewError,
  MemoryStore,
  type StatecrewEvent,
  Task,
} from '../../src/index.js';
import { createManualClock, createScriptedModel } from '../../src/testing.js';
import { taskLine } from '../helpers.js';

/** An error a retry may mend, like a provider's 503. */
const unavailable = () => Object.assign(new Error('busy'), { status: 503 });

/** A one-task crew that summarizes `{doc}`; `fail(doc, call)` makes a call fail. */
function summarizer(fail: (doc: string, call: number) => Error | undefined = () => undefined) {
  const calls = new Map<string, number>();
  const llm = createScriptedModel((request) => {
    const doc = taskLine(request.prompt).replace('Task: Summarize ', '');
    const n = (calls.get(doc) ?? 0) + 1;
    calls.set(doc, n);
    return fail(doc, n) ?? `summary of ${doc}`;
  });
  const writer = new Agent({ role: 'Writer', llm, maxRetries: 0 });
  const crew = new Crew({
    tasks: [new Task({ name: 'summarize', description: 'Summarize {doc}', agent: writer })],
  });
  return { crew, calls, llm };
}

const docsFlow = (crew: Crew, options: Record<string, unknown> = {}) =>
  createFlow({ name: 'digest', initialState: { docs: ['a', 'b', 'c'] } })
    .start('begin', () => 'go')
    .map('summaries', 'begin', {
      items: ({ state }) => state.docs.map((doc) => ({ doc })),
      itemId: (item) => item.doc,
      run: crew,
      ...options,
    });

const outputs = (value: unknown) =>
  (value as { status: string; output?: { raw: string } }[]).map((r) => [r.status, r.output?.raw]);

describe('map steps over crews', () => {
  it('runs a crew per item, with the item as its inputs, one model call each', async () => {
    const { crew, calls } = summarizer();
    const out = await docsFlow(crew, { concurrency: 2 }).kickoff();
    expect(out.status).toBe('completed');
    expect(outputs(out.outputs.summaries)).toEqual([
      ['completed', 'summary of a'],
      ['completed', 'summary of b'],
      ['completed', 'summary of c'],
    ]);
    expect(Object.fromEntries(calls)).toEqual({ a: 1, b: 1, c: 1 });
  });

  it('gives a crew item the inputs `inputs(item, index)` makes, else { item } for a value that is not an object', async () => {
    const { crew } = summarizer();
    const out = await createFlow({ name: 'plain', initialState: {} })
      .start('begin', () => 'go')
      .map('one', 'begin', { items: () => ['x'], run: crew, inputs: (item, i) => ({ doc: `${item}${i}` }) })
      .map('two', 'one', {
        items: () => ['y'],
        run: new Crew({ tasks: [...crew.tasks], agents: [...crew.agents] }),
      })
      .kickoff();
    expect(outputs(out.outputs.one)).toEqual([['completed', 'summary of x0']]);
    // `{ item: 'y' }` leaves `{doc}` unfilled: the crew says so and goes on.
    expect(outputs(out.outputs.two)).toEqual([['completed', 'summary of {doc}']]);
  });

  it('keeps each item’s crew run in the parent’s store under <run id>/<node id>/<itemId>', async () => {
    const store = new MemoryStore();
    const { crew } = summarizer();
    const flow = createFlow({ name: 'kept', initialState: { docs: ['a', 'b', 'c'] }, store })
      .start('begin', () => 'go')
      .map('summaries', 'begin', {
        items: ({ state }) => state.docs.map((doc) => ({ doc })),
        itemId: (i) => i.doc,
        run: crew,
      });
    const out = await flow.kickoff();
    expect(out.status).toBe('completed');
    for (const doc of ['a', 'b', 'c']) {
      const head = await store.readRun(`${out.state.id}/summaries/${doc}`);
      expect(head).toMatchObject({ kind: 'crew', status: 'completed', lease: null });
    }
  });

  it('retries a failing item on the run’s clock, going on with its crew run, and the others run once', async () => {
    const clock = createManualClock();
    const store = new MemoryStore();
    const { crew, calls } = summarizer((doc, n) => (doc === 'b' && n < 3 ? unavailable() : undefined));
    const events: StatecrewEvent[] = [];
    const run = docsFlow(crew, { retries: 2, retryDelayMs: 1000 }).run({ clock, store });
    run.events$.subscribe((e) => events.push(e));
    const retrying = (attempt: number) =>
      events.some((e) => e.type === 'flow.item' && e.status === 'retrying' && e.attempt === attempt);
    const turns = async (n: number) => {
      for (let i = 0; i < n; i += 1) await new Promise((r) => setImmediate(r));
    };
    // Each retry waits out its backoff on the manual clock: no call until it is advanced.
    for (const attempt of [2, 3]) {
      while (!retrying(attempt)) await turns(1);
      await turns(20);
      expect(calls.get('b')).toBe(attempt - 1);
      clock.advance(10_000);
    }
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(outputs(out.outputs.summaries)[1]).toEqual(['completed', 'summary of b']);
    expect(Object.fromEntries(calls)).toEqual({ a: 1, b: 3, c: 1 });
    const b = events.flatMap((e) =>
      e.type === 'flow.item' && e.itemId === 'b' ? [[e.status, e.attempt]] : [],
    );
    expect(b).toEqual([
      ['started', 1],
      ['retrying', 2],
      ['retrying', 3],
      ['completed', 3],
    ]);
  });

  it('does not retry a failure no retry can mend', async () => {
    const { crew, calls } = summarizer((doc) =>
      doc === 'b' ? Object.assign(new Error('no key'), { status: 401 }) : undefined,
    );
    const out = await docsFlow(crew, { retries: 3, retryDelayMs: 0, allowFailures: true }).kickoff();
    expect(calls.get('b')).toBe(1);
    expect((out.outputs.summaries as { error?: unknown }[])[1]?.error).toMatchObject({ retryable: false });
  });

  it('fails the step with map_item_failed, handled by failed(step), starting no item after the failure', async () => {
    const { crew, calls } = summarizer((doc) => (doc === 'a' ? new Error('bad doc') : undefined));
    const flow = docsFlow(crew, { concurrency: 1 }).listen(
      'recover',
      failed('summaries'),
      ({ payload }) => payload,
    );
    const out = await flow.kickoff();
    expect(out.status).toBe('completed');
    expect(out.trail).toEqual(['begin', 'recover']);
    const failure = out.outputs.recover as { step: string; error: { code: string; details: unknown } };
    expect(failure.step).toBe('summaries');
    expect(failure.error.code).toBe('map_item_failed');
    expect(out.failures.summaries).toMatchObject({ handled: true, code: 'map_item_failed' });
    expect(out.failures.summaries?.message).toContain(
      `item "a" (#0, run ${out.state.id}/summaries/a) failed`,
    );
    expect(calls.get('b')).toBeUndefined();
  });

  it('with allowFailures, completes with every item, the failed ones carrying their error', async () => {
    const { crew } = summarizer((doc) =>
      doc === 'b' ? Object.assign(new Error('bad doc'), { status: 400 }) : undefined,
    );
    const events: StatecrewEvent[] = [];
    const run = docsFlow(crew, { allowFailures: true, concurrency: 1 }).run();
    run.events$.subscribe((e) => events.push(e));
    const out = await run.result;
    expect(out.status).toBe('completed');
    const results = out.outputs.summaries as { item: unknown; status: string; error?: { message: string } }[];
    expect(results.map((r) => r.status)).toEqual(['completed', 'failed', 'completed']);
    expect(results[1]?.item).toEqual({ doc: 'b' });
    expect(results[1]?.error?.message).toMatch(
      /Crew ".*" run .*\/summaries\/b failed at task "summarize": bad doc/,
    );
    const last = events.filter((e) => e.type === 'flow.item').at(-1);
    expect(last).toMatchObject({ status: 'completed', done: 2, failed: 1, total: 3 });
    const failedEvent = events.find((e) => e.type === 'flow.item' && e.status === 'failed');
    expect(failedEvent).toMatchObject({ itemId: 'b', error: expect.stringMatching(/bad doc/) });
  });

  it('fails an attempt past timeoutMs with step_timeout on the run’s clock', async () => {
    const clock = createManualClock();
    let release: (() => void) | undefined;
    const flow = createFlow({ name: 'slow', initialState: {} })
      .start('begin', () => 'go')
      .map('work', 'begin', {
        items: () => [1],
        timeoutMs: 5000,
        allowFailures: true,
        run: () => new Promise<void>((resolve) => (release = resolve)),
      });
    const run = flow.run({ clock });
    while (clock.pending === 0) await new Promise((r) => setImmediate(r));
    clock.advance(5000);
    const out = await run.result;
    release?.();
    expect((out.outputs.work as { error?: unknown }[])[0]?.error).toMatchObject({ code: 'step_timeout' });
  });

  it('relays the crews’ run events and failed nodes into the flow’s, tagged with the step', async () => {
    const { crew } = summarizer();
    const events: StatecrewEvent[] = [];
    const run = docsFlow(crew).run();
    run.events$.subscribe((e) => events.push(e));
    await run.result;
    const relayed = events.filter((e) => e.step === 'summaries' && e.type.startsWith('run.'));
    expect(relayed.filter((e) => e.type === 'run.completed')).toHaveLength(3);
    expect(
      events.some((e) => e.type === 'node.completed' && e.step === 'summaries' && e.nodeId === 'summarize'),
    ).toBe(false);
  });

  it('leaves no item actor running once the items settled', async () => {
    const { crew } = summarizer();
    const inspected: InspectionEvent[] = [];
    const flow = docsFlow(crew).map('numbers', 'summaries', {
      items: () => [1, 2, 3],
      run: (n: number) => n,
    });
    const run = flow.run({ inspect: (e) => inspected.push(e) });
    await run.result;
    const actors = inspected.filter((e) => e.type === '@xstate.actor').map((e) => e.actorRef as AnyActorRef);
    const items = actors.filter((a) => a.id === 'map-item');
    const supervisors = actors.filter((a) => a._parent?.id === 'summaries' && a.id !== 'map-item');
    expect(items).toHaveLength(3);
    expect(supervisors.length).toBeGreaterThanOrEqual(3);
    for (const actor of [...items, ...supervisors]) expect(actor.getSnapshot().status).not.toBe('active');
  });

  it('refuses at build time a crew that could pause for a human', () => {
    const writer = new Agent({ role: 'Writer', llm: createScriptedModel(['x']) });
    const reviewed = new Crew({
      tasks: [new Task({ name: 'draft', description: 'Draft', agent: writer, humanInput: true })],
    });
    const refund = defineTool({
      name: 'refund',
      description: 'Refunds',
      input: z.object({}),
      needsApproval: true,
      execute: () => 'ok',
    });
    const approving = new Crew({
      tasks: [
        new Task({
          name: 'pay',
          description: 'Pay',
          agent: new Agent({ role: 'Payer', llm: createScriptedModel(['x']), tools: [refund] }),
        }),
      ],
    });
    for (const [crew, why] of [
      [reviewed, /task "draft" waits for a human's review/],
      [approving, /tool "refund" may wait for approval/],
    ] as const) {
      try {
        docsFlow(crew);
        expect.unreachable();
      } catch (error) {
        expect(isStatecrewError(error, 'invalid_option')).toBe(true);
        expect((error as Error).message).toMatch(/"summaries".*cannot pause for a human/);
        expect((error as Error).message).toMatch(why);
      }
    }
  });
});
