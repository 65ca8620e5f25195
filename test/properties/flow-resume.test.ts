import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { and, createFlow, type FlowSnapshot, MemoryStore, or, type Trigger } from '../../src/index.js';
import { loadSnapshot } from '../../src/runtime/flow/flow-store.js';

/** A random flow: step i listens to earlier steps (one, or an or/and of two); some steps are routers. */
const flowArbitrary = fc.integer({ min: 2, max: 10 }).chain((n) =>
  fc.record({
    triggers: fc.tuple(
      ...Array.from({ length: n - 1 }, (_, k) =>
        fc.record({
          kind: fc.constantFrom('one', 'or', 'and'),
          a: fc.integer({ min: 0, max: k }),
          b: fc.integer({ min: 0, max: k }),
        }),
      ),
    ),
    routers: fc.uniqueArray(fc.integer({ min: 1, max: n - 1 }), { maxLength: 3 }),
    stopAtCall: fc.integer({ min: 1, max: n }),
  }),
);

type Shape = { triggers: { kind: string; a: number; b: number }[]; routers: number[] };

/** The flow of a shape; `onCall` sees each step run (the crash point aborts from it). */
function flowOf(shape: Shape, store: MemoryStore, onCall: (step: string) => 'go' | 'stop') {
  const isRouter = new Set(shape.routers);
  const name = (i: number) => `s${i}`;
  // A router's label names the step it runs after, so triggers can listen to labels too.
  const emits = (i: number) => (isRouter.has(i) ? `s${i}-left` : name(i));
  let flow = createFlow({ name: 'random', initialState: { seen: [] as string[] }, store });
  const body =
    (i: number) =>
    ({ state, payload }: { state: { seen: string[] }; payload: unknown }) => {
      if (onCall(name(i)) === 'stop') return new Promise(() => {});
      state.seen.push(name(i));
      return isRouter.has(i)
        ? state.seen.length % 2 === 0
          ? `s${i}-left`
          : `s${i}-right`
        : `${name(i)}:${String(payload)}`;
    };
  const add = (i: number, trigger: Trigger | undefined) => {
    const fn = body(i);
    if (trigger === undefined) flow = flow.start(name(i), fn);
    else if (isRouter.has(i))
      flow = flow.router(name(i), trigger, fn as never, { routes: [`s${i}-left`, `s${i}-right`] });
    else flow = flow.listen(name(i), trigger, fn);
  };
  add(0, undefined);
  shape.triggers.forEach((t, k) => {
    const i = k + 1;
    const one = emits(t.a);
    const other = emits(t.b);
    const trigger =
      t.kind === 'one' || one === other ? one : t.kind === 'or' ? or(one, other) : and(one, other);
    add(i, trigger);
  });
  return flow;
}

describe('resuming an interrupted flow run', () => {
  it('ends as the uninterrupted run does, and runs no step again whose completion was stored', async () => {
    await fc.assert(
      fc.asyncProperty(flowArbitrary, async ({ stopAtCall, ...shape }) => {
        const reference = await flowOf(shape, new MemoryStore(), () => 'go').kickoff({
          inputs: { id: 'run' },
        });
        const store = new MemoryStore();
        const controller = new AbortController();
        let calls = 0;
        const ranFirst: string[] = [];
        const first = flowOf(shape, store, (step) => {
          calls += 1;
          if (calls === stopAtCall) {
            controller.abort('stop');
            return 'stop';
          }
          ranFirst.push(step);
          return 'go';
        });
        await first.kickoff({ inputs: { id: 'run' }, signal: controller.signal }).catch(() => undefined);
        await new Promise<void>((resolve) => setImmediate(resolve)); // the aborted snapshot lands
        // What the store holds as done: a step whose body ran but whose completion was not recorded
        // before the stop runs again (at least once per step).
        const stored = (await loadSnapshot(store, 'run')) as FlowSnapshot;
        const completedBefore = new Set([
          ...stored.rounds.flatMap((r) => r.steps),
          ...stored.done.map((d) => d.step),
        ]);
        const ranAgain: string[] = [];
        const resumed = await flowOf(shape, store, (step) => {
          ranAgain.push(step);
          return 'go';
        }).resume('run');
        expect({ ...resumed, totalTimeMs: 0 }).toEqual({ ...reference, totalTimeMs: 0 });
        for (const step of ranAgain) expect(completedBefore.has(step)).toBe(false);
        for (const step of completedBefore) expect(ranFirst).toContain(step);
      }),
      { numRuns: 80 },
    );
  });
});
