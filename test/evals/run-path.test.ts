import { describe, expect, it } from 'vitest';
import { choicesIn } from '../../src/evals/flow-choices.js';
import { crewRunPath, flowRunPath } from '../../src/evals/run-path.js';
import { Agent, Crew, createFlow, type Flow, failed, MemoryStore, Task } from '../../src/index.js';
import { createScriptedModel, forEachPath } from '../../src/testing.js';

const noop = () => 'done';

/** A router that may choose a route twice (a revise loop), and a step whose failure is handled. */
function reviewFlow() {
  return createFlow({ name: 'review-loop', initialState: { broken: false } })
    .start('draft', noop)
    .router('grade', 'draft', () => 'approve', { routes: ['approve', 'revise'] })
    .listen('rework', 'revise', noop)
    .router('regrade', 'rework', () => 'approve', { routes: ['approve', 'drop'] })
    .listen('publish', 'approve', ({ state }) => {
      if (state.broken) throw new Error('press down');
      return 'published';
    })
    .listen('apologise', failed('publish'), noop)
    .listen('discard', 'drop', noop);
}

/** A wait whose deadline routes to `late`. */
function paymentFlow() {
  return createFlow({ name: 'payment', initialState: {} })
    .start('invoice', noop)
    .wait('payment', 'invoice', { event: 'payment.received', timeoutMs: 1000, onTimeout: 'late' })
    .listen('thank', 'payment', noop)
    .listen('remind', 'late', noop);
}

/** A flow step whose child chooses, and a handler for the child's failure. */
function publishFlow() {
  const child = createFlow({ name: 'inner', initialState: {} })
    .start('write', noop)
    .router('check', 'write', () => 'ok', { routes: ['ok', 'redo'] })
    .listen('polish', 'ok', noop)
    .listen('rewrite', 'redo', noop);
  return createFlow({ name: 'outer', initialState: {} })
    .start('fetch', noop)
    .flow('inner', 'fetch', child)
    .listen('ship', 'inner', noop)
    .listen('recover', failed('fetch'), noop);
}

/** Runs every path of `flow` and checks `flowRunPath` of each run gives the path's trail and routes. */
async function expectRunPathsEqualPaths<S>(flow: Flow<S>): Promise<void> {
  const runs = await forEachPath(flow, () => undefined);
  expect(runs.length).toBe(flow.analyze().paths.length);
  for (const run of runs) {
    const path = flowRunPath(flow, run.output, run.children);
    expect({ trail: path.trail, routes: path.routes }).toEqual({
      trail: run.path.trail,
      routes: run.path.routes,
    });
  }
}

const flows: [string, () => Promise<void>][] = [
  ['routers and a handled failure', () => expectRunPathsEqualPaths(reviewFlow())],
  ['a wait with a timeout', () => expectRunPathsEqualPaths(paymentFlow())],
  ['a subflow whose child chooses', () => expectRunPathsEqualPaths(publishFlow())],
];

describe('flowRunPath', () => {
  for (const [name, check] of flows) {
    it(`gives every path of a flow with ${name} its trail and routes when forEachPath runs it`, check);
  }

  it('names a handled failure `failed` and lists it among the failed steps', async () => {
    const flow = reviewFlow();
    const out = await flow.kickoff({ inputs: { broken: true } });
    const path = flowRunPath(flow, out);
    expect(path.trail).toEqual(['draft', 'grade', 'apologise']);
    expect(path.routes).toEqual({ grade: 'approve', publish: 'failed' });
    expect(path.failed).toEqual(['publish']);
    expect(path.emitted).toEqual(out.emitted);
  });

  it('gives a paused run the prefix it took, the wait not yet chosen but named as waiting', async () => {
    const flow = createFlow({ name: 'payment', initialState: {}, store: new MemoryStore() })
      .start('invoice', noop)
      .wait('payment', 'invoice', { event: 'payment.received', timeoutMs: 1000, onTimeout: 'late' })
      .listen('thank', 'payment', noop);
    const out = await flow.kickoff();
    expect(out.status).toBe('paused');
    expect(flowRunPath(flow, out)).toEqual({
      trail: ['invoice'],
      routes: {},
      emitted: ['invoice'],
      failed: [],
      waiting: ['payment'],
    });
  });
});

describe('choicesIn', () => {
  it('lists the labels of a router that chose more than once, in order, and reads a timeout label by its step', () => {
    const flow = paymentFlow().router('grade', 'thank', () => 'again', { routes: ['again', 'stop'] });
    const emitted = ['invoice', 'late', 'remind', 'grade', 'again', 'grade', 'stop'];
    const trail = ['invoice', 'payment', 'remind', 'grade', 'grade'];
    expect(choicesIn(flow.definition.steps, emitted, trail)).toEqual({
      payment: 'late',
      grade: ['again', 'stop'],
    });
  });
});

describe('crewRunPath', () => {
  it('lists the completed tasks in completion order and the failed ones', async () => {
    const model = createScriptedModel([{ text: 'facts' }, { text: 'essay' }]);
    const agent = new Agent({ role: 'writer', goal: 'write', backstory: 'writes', llm: model });
    const crew = new Crew({
      agents: [agent],
      tasks: [
        new Task({ name: 'research', description: 'research', expectedOutput: 'facts', agent }),
        new Task({ name: 'write', description: 'write', expectedOutput: 'an essay', agent }),
      ],
    });
    const out = await crew.kickoff();
    expect(crewRunPath(crew, out)).toEqual({
      trail: ['research', 'write'],
      routes: {},
      emitted: [],
      failed: [],
    });
  });
});
