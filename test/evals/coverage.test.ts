import { describe, expect, it } from 'vitest';
import { orderSaga } from '../../examples/order-saga.js';
import { coverageOf } from '../../src/evals/coverage.js';
import { formatCoverage } from '../../src/evals/report-text.js';
import { crewRunPath, flowRunPath } from '../../src/evals/run-path.js';
import { Agent, Crew, createFlow, MemoryStore, Task } from '../../src/index.js';
import { type ChildRound, createScriptedModel, forEachPath } from '../../src/testing.js';

/** The order saga run for a good card (it pauses at `delivery`) and a declined one (refunded). */
async function sagaCoverage() {
  const saga = orderSaga(new MemoryStore());
  const cards = ['good', 'declined'];
  const outs = await Promise.all(
    cards.map((card) => saga.kickoff({ inputs: { customer: `c-${card}`, card, amount: 10 } })),
  );
  const paths = outs.map((out) => flowRunPath(saga, out));
  return { outs, paths, coverage: coverageOf(saga, paths) };
}

describe('coverageOf a flow: the order saga', () => {
  it('takes a good card to the delivery wait (the prefix charge → ship) and a declined one to refund → notify', async () => {
    const { outs, paths } = await sagaCoverage();
    expect(outs.map((out) => out.status)).toEqual(['paused', 'completed']);
    expect(paths[0]).toMatchObject({ trail: ['charge', 'ship'], routes: { charge: 'charge' } });
    expect(paths[1]).toMatchObject({
      trail: ['refund', 'notify'],
      routes: { charge: 'failed' },
      failed: ['charge'],
    });
  });

  it('names the untaken branches and covers the failure handler', async () => {
    const { coverage } = await sagaCoverage();
    expect(coverage.kind).toBe('flow');
    expect(coverage.paths).toEqual({
      covered: ['refund → notify [completed]'],
      uncovered: [
        'charge → ship → delivery → close [completed]',
        'charge → ship → delivery → investigate [completed]',
      ],
      ratio: 1 / 3,
      total: 3,
    });
    expect(coverage.routes).toEqual({ covered: [], uncovered: ['delivery=lost'], ratio: 0 });
    expect(coverage.timeouts).toEqual({ covered: [], uncovered: ['delivery=lost'], ratio: 0 });
    expect(coverage.failureHandlers).toEqual({ covered: ['refund'], uncovered: [], ratio: 1 });
    expect(coverage.nodes.covered).toEqual(['charge', 'refund', 'notify', 'ship']);
    expect(coverage.nodes.uncovered).toEqual(['delivery', 'close', 'investigate']);
    expect(coverage.truncated).toBe(false);
  });

  it('counts the runs along each edge of the definition, labelled with its route or failure; a paused run reached the wait it waits at', async () => {
    const { coverage } = await sagaCoverage();
    expect(coverage.edges).toEqual([
      { from: 'charge', to: 'refund', label: 'failed', taken: 1 },
      { from: 'refund', to: 'notify', taken: 1 },
      { from: 'charge', to: 'ship', taken: 1 },
      { from: 'ship', to: 'delivery', taken: 1 },
      { from: 'delivery', to: 'close', taken: 0 },
      { from: 'delivery', to: 'investigate', label: 'lost', taken: 0 },
    ]);
  });

  it('prints the untaken branches one per line', async () => {
    const { coverage } = await sagaCoverage();
    const text = formatCoverage(coverage);
    expect(text).toContain('never taken: delivery=lost');
    expect(text).toContain('never taken: investigate');
    expect(text).toContain('never taken: close');
    expect(text).toContain('never taken: charge → ship → delivery → investigate [completed]');
    expect(text).not.toContain('never taken: refund');
    expect(text).not.toContain('never taken: notify');
    expect(text).toMatch(/failure handlers\s+1\/1 \(100%\)/);
  });
});

describe('coverageOf a flow with a subflow', () => {
  const child = () =>
    createFlow({ name: 'inner', initialState: {} })
      .start('write', () => 'text')
      .router('check', 'write', () => 'ok', { routes: ['ok', 'redo'] })
      .listen('polish', 'ok', () => 'polished')
      .listen('rewrite', 'redo', () => 'rewritten');
  const outer = () =>
    createFlow({ name: 'outer', initialState: {} })
      .start('fetch', () => 'page')
      .flow('inner', 'fetch', child())
      .listen('ship', 'inner', () => 'shipped');

  it('covers every path, route, step and edge when every path ran; a child’s by its path', async () => {
    const flow = outer();
    const runs = await forEachPath(flow, () => undefined);
    const coverage = coverageOf(
      flow,
      runs.map((run) => flowRunPath(flow, run.output, run.children)),
    );
    expect(coverage.paths.ratio).toBe(1);
    expect(coverage.routes.covered).toEqual(['inner › check=ok', 'inner › check=redo']);
    expect(coverage.nodes.uncovered).toEqual([]);
    expect(coverage.nodes.covered).toContain('inner › polish');
    expect(coverage.edges).toContainEqual({
      from: 'inner › check',
      to: 'inner › rewrite',
      label: 'redo',
      taken: 1,
    });
    expect(coverage.edges.every((edge) => edge.taken > 0)).toBe(true);
  });

  it('names the child route a default run, its child rounds read from its events, never took', async () => {
    const flow = outer();
    const run = flow.run();
    const children: ChildRound[] = [];
    const subscription = run.events$.subscribe((event) => {
      const { step } = event as { step?: unknown };
      if (event.type === 'flow.round' && typeof step === 'string') {
        children.push({ step, steps: event.steps, emitted: event.emitted });
      }
    });
    const out = await run.result;
    subscription.unsubscribe();
    const path = flowRunPath(flow, out, children);
    expect(path.trail).toEqual([
      'fetch',
      'inner › write',
      'inner › check',
      'inner › polish',
      'inner',
      'ship',
    ]);
    const coverage = coverageOf(flow, [path]);
    expect(coverage.routes).toEqual({
      covered: ['inner › check=ok'],
      uncovered: ['inner › check=redo'],
      ratio: 0.5,
    });
    expect(coverage.nodes.uncovered).toEqual(['inner › rewrite']);
  });
});

describe('coverageOf a crew', () => {
  it('has one path, its tasks in list order, and its tasks as nodes; no routes', async () => {
    const model = createScriptedModel([{ text: 'facts' }, { text: 'essay' }, { text: 'edited' }]);
    const agent = new Agent({ role: 'writer', goal: 'write', backstory: 'writes', llm: model });
    const crew = new Crew({
      agents: [agent],
      tasks: [
        new Task({ name: 'research', description: 'research', expectedOutput: 'facts', agent }),
        new Task({ name: 'write', description: 'write', expectedOutput: 'an essay', agent }),
        new Task({ name: 'edit', description: 'edit', expectedOutput: 'an edit', agent }),
      ],
    });
    const partial = { trail: ['research'], routes: {}, emitted: [], failed: ['write'] };
    const coverage = coverageOf(crew, [partial]);
    expect(coverage.kind).toBe('crew');
    expect(coverage.paths).toEqual({
      covered: [],
      uncovered: ['research → write → edit'],
      ratio: 0,
      total: 1,
    });
    expect(coverage.nodes).toEqual({ covered: ['research'], uncovered: ['write', 'edit'], ratio: 1 / 3 });
    expect(coverage.routes.ratio).toBe(1);
    expect(coverage.edges.filter((e) => !e.from.startsWith('@') && !e.to.startsWith('@'))).toEqual([
      { from: 'research', to: 'write', taken: 0 },
      { from: 'write', to: 'edit', taken: 0 },
    ]);
    const full = coverageOf(crew, [crewRunPath(crew, await crew.kickoff())]);
    expect(full.paths.covered).toEqual(['research → write → edit']);
    expect(full.nodes.ratio).toBe(1);
  });
});
