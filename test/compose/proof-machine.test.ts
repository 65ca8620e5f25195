import { getSimplePaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { type AnyStateMachine, createMachine } from 'xstate';
import { createFlow, failed } from '../../src/index.js';

const noop = () => undefined;

/** The final states `@xstate/graph` reaches in a plain machine, one per simple path, by the events on the way. */
function ends(machine: { config: unknown }): string[] {
  const built = createMachine(JSON.parse(JSON.stringify(machine.config))) as AnyStateMachine;
  const types = new Set<string>();
  const collect = (config: { on?: object; states?: Record<string, object> }) => {
    for (const type of Object.keys(config.on ?? {})) types.add(type);
    for (const state of Object.values(config.states ?? {})) collect(state);
  };
  collect(machine.config as never);
  return getSimplePaths(built, {
    events: [...types].map((type) => ({ type })),
    toState: (state: { status: string }) => state.status === 'done',
  }).map((p) => p.steps.map((s) => s.event.type).join(' '));
}

describe('the abstract machines of a flow with a map and a subflow', () => {
  it('walk, with @xstate/graph, to as many ends as analysis composes paths from', () => {
    const review = createFlow({ name: 'review', initialState: {} })
      .start('draft', noop)
      .router('grade', 'draft', () => 'approve', { routes: ['approve', 'revise'] })
      .human('sign', 'approve', { routes: ['signed', 'refused'] })
      .listen('publish', 'signed', noop)
      .listen('rework', 'revise', noop);
    const flow = createFlow({ name: 'publish', initialState: {} })
      .start('fetch', noop)
      .map('summaries', 'fetch', { items: () => [1, 2], run: noop })
      .flow('review', 'summaries', review)
      .listen('ship', 'review', noop)
      .listen('recover', failed('summaries'), noop);
    // The map step is one node with its failure edge; the flow step one node the child's paths expand.
    const parent = ends(flow.toMachine());
    const child = ends(review.toMachine());
    expect(parent).toHaveLength(2);
    expect(child).toHaveLength(3);
    const paths = flow.paths();
    const throughReview = paths.filter((p) => p.trail.includes('review'));
    expect(throughReview).toHaveLength(child.length);
    expect(paths).toHaveLength(child.length + 1);
    expect(new Set(throughReview.map((p) => JSON.stringify(p.routes))).size).toBe(child.length);
  });
});
