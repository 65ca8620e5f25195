import { describe, expect, it } from 'vitest';
import { createFlow, or, type StatecrewEvent } from '../../../src/index.js';

function reviseLoop(approveOnDraft: number | undefined) {
  return createFlow({ name: 'revise-loop', initialState: { drafts: 0 } })
    .start('begin', () => 'brief')
    .listen(
      'draft',
      or('begin', 'revise'),
      ({ state }) => {
        state.drafts += 1;
        return `draft ${state.drafts}`;
      },
      { maxRuns: 3 },
    )
    .router('grade', 'draft', ({ state }) => (state.drafts === approveOnDraft ? 'approve' : 'revise'), {
      routes: ['approve', 'revise'],
      maxRuns: 3,
    })
    .listen('publish', 'approve', ({ outputs }) => `published ${String(outputs.draft)}`);
}

describe('bounded re-runs', () => {
  it('converges when the grade approves the third draft', async () => {
    const out = await reviseLoop(3).kickoff();
    expect(out.status).toBe('completed');
    expect(out.trail).toEqual(['begin', 'draft', 'grade', 'draft', 'grade', 'draft', 'grade', 'publish']);
    expect(out.output).toBe('published draft 3');
    expect(out.state.drafts).toBe(3);
  });

  it('fails with max_runs after exactly three drafts when the grade never approves', async () => {
    const out = await reviseLoop(undefined).kickoff();
    expect(out.status).toBe('failed');
    expect(out.state.drafts).toBe(3);
    expect(out.errors).toEqual({
      draft: 'Step "draft" was triggered a 4th time, but its maxRuns is 3 (max_runs)',
    });
    expect(out.trail.filter((s) => s === 'draft')).toHaveLength(3);
  });

  it('ignores later emissions of a trigger for a step without maxRuns', async () => {
    let runs = 0;
    const flow = createFlow({ name: 'once', initialState: {} })
      .start('a', () => 'a')
      .listen('b', 'a', () => 'b')
      .listen('c', 'b', () => 'c')
      .listen('once', or('a', 'c'), () => {
        runs += 1;
      });
    const out = await flow.kickoff();
    expect(runs).toBe(1);
    expect(out.status).toBe('completed');
  });
});

describe('flow failures and abort', () => {
  it('stops on a throwing step: failed, its error, nothing downstream, partial state and trail kept', async () => {
    const flow = createFlow({ name: 'broken', initialState: { done: [] as string[] } })
      .start('a', ({ state }) => {
        state.done.push('a');
        return 'A';
      })
      .listen('b', 'a', () => {
        throw new Error('b exploded');
      })
      .listen('sibling', 'a', ({ state }) => {
        state.done.push('sibling');
        return 'S';
      })
      .listen('c', 'b', () => 'never')
      .listen('d', 'sibling', () => 'never either');
    const out = await flow.kickoff();
    expect(out.status).toBe('failed');
    expect(out.errors).toEqual({ b: 'b exploded' });
    expect(out.trail).toEqual(['a', 'sibling']);
    expect(out.outputs).toEqual({ a: 'A', sibling: 'S' });
    expect(out.state.done).toEqual(['a', 'sibling']);
    expect(out.output).toBe('S');
  });

  it('aborts: stops the steps in flight, hands them the abort, rejects with the reason', async () => {
    let stepSignal: AbortSignal | undefined;
    const flow = createFlow({ name: 'abortable', initialState: {} })
      .start('wait', ({ signal }) => {
        stepSignal = signal;
        return new Promise(() => {});
      })
      .listen('after', 'wait', () => 'never');
    const controller = new AbortController();
    const run = flow.run({ signal: controller.signal });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    await new Promise<void>((resolve) => {
      run.events$.subscribe((e) => e.type === 'flow.step' && e.status === 'started' && resolve());
    });
    controller.abort(new Error('operator stop'));
    await expect(run.result).rejects.toThrow('operator stop');
    expect(stepSignal?.aborted).toBe(true);
    expect(run.actor.getSnapshot().value).toBe('aborted');
    expect(events.at(-1)?.type).toBe('run.failed');
  });

  it('emits node.* events for every step run beside flow.step, flow.route and flow.round, with the state id as run id', async () => {
    const flow = createFlow({ name: 'events', initialState: {} })
      .start('s', () => 's')
      .router('r', 's', () => 'yes', { routes: ['yes', 'no'] });
    const run = flow.run({ inputs: { id: 'run-7' } });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    await run.result;
    expect(events.map((e) => `${e.type}${'status' in e ? `:${e.status}` : ''}`)).toEqual([
      'run.started',
      'node.ready',
      'node.started',
      'flow.step:started',
      'node.completed',
      'flow.step:completed',
      'flow.round',
      'node.ready',
      'node.started',
      'flow.step:started',
      'node.completed',
      'flow.step:completed',
      'flow.route',
      'flow.round',
      'run.completed:completed',
    ]);
    expect(events.every((e) => e.runId === 'run-7')).toBe(true);
    const completed = events.filter((e) => e.type === 'node.completed');
    expect(completed).toMatchObject([
      { nodeId: 's', step: 's', attempts: 1, output: { name: 's', raw: 's' } },
      { nodeId: 'r', step: 'r', attempts: 1, output: { name: 'r', raw: 'yes' } },
    ]);
    expect(events.find((e) => e.type === 'flow.route')).toMatchObject({ router: 'r', label: 'yes' });
  });
});
