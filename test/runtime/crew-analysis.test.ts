import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { Crew, Task } from '../../src/index.js';
import { agent, echoModel } from '../helpers.js';

const worker = agent('Worker', echoModel());
const task = (name: string, context?: Task[]) =>
  new Task({ name, description: name, agent: worker, context });

describe('crew analysis', () => {
  it('lists a sequential crew’s paths: a failure at each task, or success', () => {
    const crew = new Crew({ tasks: [task('a'), task('b'), task('c')] });
    const analysis = crew.analyze();
    expect(analysis.paths.map((p) => [p.states.join('>'), p.outcome]).sort()).toEqual([
      ['a>b>c>completed', 'completed'],
      ['a>b>c>failed', 'failed'],
      ['a>b>failed', 'failed'],
      ['a>failed', 'failed'],
    ]);
    expect(analysis.blockedOnFailure).toEqual({ a: ['b', 'c'], b: ['c'], c: [] });
    expect(analysis.criticalPath).toEqual(['a', 'b', 'c']);
  });

  it('gives a hierarchical crew one shortest path per allocation choice, not every combination', () => {
    const crew = new Crew({
      agents: [agent('A', echoModel()), agent('B', echoModel())],
      tasks: [task('t1'), task('t2'), task('t3')],
      process: 'hierarchical',
      manager: { allocate: () => 'A', synthesize: () => 's' },
    });
    const { paths } = crew.analyze();
    expect(paths.every((p) => p.outcome === 'completed' || p.outcome === 'failed')).toBe(true);
    expect(paths.length).toBeLessThan(2 ** 3);
    expect(paths.find((p) => p.outcome === 'completed')?.events).toEqual([
      'ALLOCATE.A',
      'SUCCEED',
      'ALLOCATE.A',
      'SUCCEED',
      'ALLOCATE.A',
      'SUCCEED',
      'SUCCEED',
    ]);
  });

  it('bounds a loop crew by its iterations', () => {
    const crew = new Crew({
      tasks: [task('draft'), task('review')],
      process: 'loop',
      loop: { condition: 'good', judge: () => 'YES', maxIterations: 2 },
    });
    const { paths, terminates } = crew.analyze();
    expect(terminates).toBe(true);
    expect(paths.filter((p) => p.outcome === 'completed').map((p) => p.events.join(' '))).toEqual([
      'SUCCEED SUCCEED YES',
      'SUCCEED SUCCEED NO SUCCEED SUCCEED YES',
      'SUCCEED SUCCEED NO SUCCEED SUCCEED NO',
    ]);
  });

  it('finds a graph crew’s cycle, what it makes unreachable, its critical path and what failures block', () => {
    const a = task('a');
    const b = task('b', [a]);
    const b2 = task('b2', [b]);
    const c = task('c', [a]);
    const d = task('d', [b2, c]);
    const e = task('e', [d]);
    const dag = new Crew({ tasks: [e, d, c, b2, b, a], process: 'graph' });
    const analysis = dag.analyze();
    expect(analysis).toMatchObject({ terminates: true, cycle: undefined, unreachable: [] });
    expect(analysis.criticalPath).toEqual(['a', 'b', 'b2', 'd', 'e']);
    expect(analysis.blockedOnFailure).toMatchObject({ a: ['e', 'd', 'c', 'b2', 'b'], c: ['e', 'd'], e: [] });

    const x = task('x');
    const y = task('y', [x]);
    const z = task('z', [y]);
    x.context = [z];
    const after = task('after', [z]);
    const cyclic = new Crew({ tasks: [task('free'), x, y, z, after], process: 'graph' }).analyze();
    expect(cyclic.terminates).toBe(false);
    expect(cyclic.cycle).toEqual(['x', 'y', 'z']);
    expect(cyclic.unreachable).toEqual(['x', 'y', 'z', 'after']);
  });

  it('compiles every process to a plain machine that round-trips through JSON', () => {
    const processes = ['sequential', 'hierarchical', 'parallel', 'graph', 'loop'] as const;
    for (const process of processes) {
      const crew = new Crew({
        tasks: [task('a'), task('b')],
        agents: [worker],
        process,
        manager: { allocate: () => 'Worker', synthesize: () => 's' },
        loop: { condition: 'c', judge: () => 'YES' },
      });
      const machine = crew.toMachine();
      expect(createMachine(JSON.parse(JSON.stringify(machine.config))).config).toEqual(machine.config);
      expect(crew.toMermaid().startsWith('flowchart TD')).toBe(true);
    }
  });

  it('draws a graph crew’s dependencies as Mermaid edges', () => {
    const a = task('a');
    const crew = new Crew({ tasks: [a, task('b', [a])], process: 'graph' });
    expect(crew.toMermaid()).toBe(['flowchart TD', '  t0["a"]', '  t1["b"]', '  t0 --> t1'].join('\n'));
  });
});
