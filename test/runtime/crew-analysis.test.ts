import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { Crew, Task } from '../../src/index.js';
import { type SequentialEffects, sequentialMachine } from '../../src/machines/sequential.js';
import { chainStateName, chainTask } from '../../src/runtime/crew/crew-picture.js';
import { inertEffects, settleMoves, supervisorPicture } from '../../src/runtime/crew/supervisor-picture.js';
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

  it('lists each way a hierarchical crew can end once: whom the manager allocates is not a branch', () => {
    const crew = new Crew({
      agents: [agent('A', echoModel()), agent('B', echoModel())],
      tasks: [task('t1'), task('t2'), task('t3')],
      process: 'hierarchical',
      manager: { allocate: () => 'A', synthesize: () => 's' },
    });
    const { paths } = crew.analyze();
    // A failed allocation or task at each of the three, a failed synthesis, or success: 8, not 2^3 × 8.
    expect(paths.map((p) => [p.states.join('>'), p.outcome]).sort()).toEqual([
      ['allocate t1>failed', 'failed'],
      ['allocate t1>t1>allocate t2>failed', 'failed'],
      ['allocate t1>t1>allocate t2>t2>allocate t3>failed', 'failed'],
      ['allocate t1>t1>allocate t2>t2>allocate t3>t3>failed', 'failed'],
      ['allocate t1>t1>allocate t2>t2>allocate t3>t3>synthesize>completed', 'completed'],
      ['allocate t1>t1>allocate t2>t2>allocate t3>t3>synthesize>failed', 'failed'],
      ['allocate t1>t1>allocate t2>t2>failed', 'failed'],
      ['allocate t1>t1>failed', 'failed'],
    ]);
    expect(paths.find((p) => p.outcome === 'completed')?.events).toEqual([
      'ALLOCATE',
      'SUCCEED',
      'ALLOCATE',
      'SUCCEED',
      'ALLOCATE',
      'SUCCEED',
      'SUCCEED',
    ]);
    // The picture keeps the choice: an allocation state goes on to its task for each worker.
    const states = crew.toMachine().config.states as Record<string, { on?: Record<string, string> }>;
    expect(states['allocate t2']?.on).toEqual({ 'ALLOCATE.A': 't2', 'ALLOCATE.B': 't2', FAIL: 'failed' });
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

  it('draws the supervisor it is given, never runs its effects, and names only completed or failed ends', () => {
    const ids = ['a', 'b', 'c'];
    const walk = (logic: typeof sequentialMachine) => ({
      id: 'sequential',
      logic,
      input: { effects: inertEffects<SequentialEffects>('sequential'), total: ids.length },
      moves: (s: Parameters<typeof chainTask>[1]) =>
        s.matches('running') ? settleMoves(chainTask(ids, s)) : [],
      name: (s: Parameters<typeof chainTask>[1]) => chainStateName(ids, s),
    });
    const states = (logic: typeof sequentialMachine) =>
      supervisorPicture(walk(logic)).config.states as Record<string, { on?: Record<string, string> }>;
    expect(states(sequentialMachine).a?.on).toEqual({ SUCCEED: 'b', FAIL: 'failed' });
    // A supervisor that wrongly ends after its first task: the picture shows what it does.
    const stopsEarly = sequentialMachine.provide({ guards: { isLast: () => true } });
    expect(Object.keys(states(stopsEarly)).sort()).toEqual(['a', 'failed']);
    expect(() => inertEffects<SequentialEffects>('sequential').startNode(0, {} as never)).toThrow(
      /ran an effect/,
    );
  });
});
