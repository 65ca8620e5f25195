import { describe, expect, it } from 'vitest';
import { and, createFlow } from '../../../src/index.js';

// Proof on long flows. These tests check results only, never timing (bench/analysis.ts measures that);
// the timeout is generous so that a loaded machine cannot fail them.
const TIMEOUT = 20_000;
const noop = () => undefined;
const names = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `s${from + i}`);

/** `s0` starts; each of `s1` … `s{n-1}` listens to the one before. */
function chain(steps: number) {
  let flow = createFlow({ name: 'chain', initialState: {} }).start('s0', noop);
  for (let i = 1; i < steps; i += 1) flow = flow.listen(`s${i}`, `s${i - 1}`, noop);
  return flow;
}

/** `s0` starts; `s1` … `s{listeners}` all listen to it. */
function fanOut(listeners: number) {
  let flow = createFlow({ name: 'fan-out', initialState: {} }).start('s0', noop);
  for (let i = 1; i <= listeners; i += 1) flow = flow.listen(`s${i}`, 's0', noop);
  return flow;
}

describe('flow analysis at scale', () => {
  it(
    'proves a 2,000-step chain: one path, its trail in order, one state per round plus the end',
    () => {
      const flow = chain(2000);
      const analysis = flow.analyze();
      expect(analysis.terminates).toBe(true);
      expect(analysis.paths).toEqual([{ routes: {}, trail: names(0, 1999), outcome: 'completed' }]);
      expect(analysis.stats).toEqual({ states: 2001, transitions: 2000, paths: 1, truncated: false });
      expect(analysis.unreachableSteps).toEqual([]);
      expect(analysis.deadEnds).toEqual([]);
      expect(flow.paths()).toEqual(analysis.paths);
    },
    TIMEOUT,
  );

  it(
    'compiles a 2,000-step chain to a machine of one state per step and a final state',
    () => {
      const machine = chain(2000).toMachine();
      const states = Object.keys(machine.states);
      expect(states).toHaveLength(2001);
      expect(states[0]).toBe('1: s0');
      expect(states[1999]).toBe('2000: s1999');
      expect(states[2000]).toBe('completed');
      expect(machine.config.initial).toBe('1: s0');
      expect(machine.states['1000: s999']?.config.on).toEqual({ NEXT: '1001: s1000' });
      expect(machine.states['2000: s1999']?.config.on).toEqual({ NEXT: 'completed' });
      expect(machine.states.completed?.config.type).toBe('final');
    },
    TIMEOUT,
  );

  it(
    'proves a fan-out of 2,000 listeners: one round of all of them, in definition order',
    () => {
      const flow = fanOut(2000);
      const analysis = flow.analyze();
      expect(analysis.terminates).toBe(true);
      expect(analysis.paths).toEqual([{ routes: {}, trail: names(0, 2000), outcome: 'completed' }]);
      expect(analysis.stats).toEqual({ states: 3, transitions: 2, paths: 1, truncated: false });
      const machine = flow.toMachine();
      expect(Object.keys(machine.states)).toEqual(['1: s0', `2: ${names(1, 2000).join(', ')}`, 'completed']);
    },
    TIMEOUT,
  );

  it(
    'proves a fan-out of 2,000 listeners joined by one and(...) of all of them',
    () => {
      const flow = fanOut(2000).listen('join', and(...names(1, 2000)), noop);
      const analysis = flow.analyze();
      expect(analysis.terminates).toBe(true);
      expect(analysis.paths).toEqual([
        { routes: {}, trail: [...names(0, 2000), 'join'], outcome: 'completed' },
      ]);
      expect(analysis.stats).toEqual({ states: 4, transitions: 3, paths: 1, truncated: false });
      expect(analysis.deadEnds).toEqual([]);
      const states = Object.keys(flow.toMachine().states);
      expect(states).toHaveLength(4);
      expect([states[0], states[2], states[3]]).toEqual(['1: s0', '3: join', 'completed']);
    },
    TIMEOUT,
  );

  it(
    'walks the path of a 10,000-step chain without running out of stack',
    () => {
      const analysis = chain(10_000).analyze();
      expect(analysis.terminates).toBe(true);
      expect(analysis.paths).toHaveLength(1);
      expect(analysis.paths[0]?.trail).toHaveLength(10_000);
      expect(analysis.paths[0]?.trail.at(-1)).toBe('s9999');
      expect(analysis.stats.states).toBe(10_001);
    },
    TIMEOUT,
  );
});
