/**
 * What one XState actor costs here, the floor under statecrew's per-task cost: 10,000 task-like actors
 * in a chain, each created with a parent (statecrew's layout), started, driven to its final state.
 *   promise      a bare promise actor (fromPromise), no machine
 *   minimal      a 4-state machine (idle → ready → running → completed) invoking a promise
 *   lifecycle    statecrew's lifecycle machine (emits its events, records attempts and timing)
 * Run: npx tsx bench/actor-floor.ts
 */
import { type AnyActorLogic, assign, createActor, fromPromise, setup } from 'xstate';
import { lifecycleMachine, type WorkInput, type WorkOutcome } from '../src/machines/lifecycle.js';

const N = 10_000;
const outcome = async (): Promise<WorkOutcome> => {
  await Promise.resolve();
  return { ok: true, output: 'x', finishedAt: 0 };
};
const work = fromPromise(outcome);

const minimal = setup({ actors: { work } }).createMachine({
  initial: 'idle',
  context: { attempts: 0 },
  states: {
    idle: { on: { READY: 'ready' } },
    ready: {
      on: {
        START: { target: 'running', actions: assign({ attempts: ({ context }) => context.attempts + 1 }) },
      },
    },
    running: { invoke: { src: 'work', onDone: 'completed' } },
    completed: { type: 'final' },
  },
});

const lifecycle = lifecycleMachine.provide({
  actors: { work: fromPromise<WorkOutcome, WorkInput>(outcome) },
});
const parentLogic = setup({}).createMachine({ on: { '*': {} } });

async function chain(logic: AnyActorLogic, input: (i: number) => unknown, drive: boolean): Promise<number> {
  const parent = createActor(parentLogic);
  parent.start();
  const started = performance.now();
  for (let i = 0; i < N; i += 1) {
    const actor = createActor(logic, { parent, input: input(i) });
    // statecrew's lifecycle ends in `completed`, terminal but not final (its supervisor stops it).
    const done = new Promise<void>((resolve) =>
      actor.subscribe({
        next: (s: { value?: unknown }) => s.value === 'completed' && resolve(),
        complete: () => resolve(),
        error: () => resolve(),
      }),
    );
    actor.start();
    if (drive) {
      actor.send({ type: 'READY' });
      actor.send({ type: 'START', at: 0 });
    }
    await done;
  }
  return ((performance.now() - started) * 1000) / N;
}

const cases: [string, AnyActorLogic, (i: number) => unknown, boolean][] = [
  ['promise', work, () => undefined, false],
  ['minimal', minimal, () => undefined, true],
  ['lifecycle', lifecycle, (i) => ({ run: 'floor', nodeId: `t${i}`, maxAttempts: 3 }), true],
];
console.log(
  `${N} actors in a chain, each with a parent; median of 5 after a warm-up (node ${process.version})`,
);
for (const [name, logic, input, drive] of cases) {
  await chain(logic, input, drive);
  const runs: number[] = [];
  for (let r = 0; r < 5; r += 1) runs.push(await chain(logic, input, drive));
  runs.sort((a, b) => a - b);
  console.log(`${name.padEnd(10)} ${(runs[2] as number).toFixed(1)} µs per actor`);
}
