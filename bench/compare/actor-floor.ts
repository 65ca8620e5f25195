/**
 * The floor under statecrew's per-task cost: one XState actor per task run under a supervisor
 * machine, in statecrew's layout (each task actor created with the supervisor as `parent`, outside its
 * `children` map), its work run outside it and its outcome sent back as an event. No events, no
 * bookkeeping, no results: what one actor per task costs, and nothing else.
 */
import { assign, createActor, enqueueActions, setup } from 'xstate';
import { type Adapter, stubModel } from './workloads.js';

/** A task run: `running` starts its work outside the actor and completes on the outcome. */
type Model = (input: string) => Promise<string>;

const taskLogic = setup({
  types: {
    context: {} as { input: string; model: Model; output: string },
    input: {} as { input: string; model: Model },
    events: {} as { type: 'DONE'; output: string },
  },
}).createMachine({
  context: ({ input }) => ({ input: input.input, model: input.model, output: '' }),
  initial: 'running',
  states: {
    running: {
      entry: ({ context, self }) => {
        void context.model(context.input).then((output) => self.send({ type: 'DONE', output }));
      },
      on: { DONE: { target: 'completed', actions: assign({ output: ({ event }) => event.output }) } },
    },
    completed: { type: 'final' },
  },
  output: ({ context }) => context.output,
});

/** A supervisor that runs `total` tasks, at most `concurrency` at once; its output is the last output. */
function supervisorLogic(total: number, concurrency: number, model: Model) {
  return setup({
    types: { context: {} as { started: number; done: number; last: string }, output: {} as string },
    actions: {
      fill: enqueueActions(({ context, self, enqueue }) => {
        let started = context.started;
        while (started < total && started - context.done < concurrency) {
          started += 1;
          const input = context.last;
          // Outside the transition, as statecrew starts its runs (after the supervisor's step).
          queueMicrotask(() =>
            createActor(taskLogic, { id: 'task', parent: self, input: { input, model } }).start(),
          );
        }
        enqueue.assign({ started });
      }),
    },
  }).createMachine({
    context: { started: 0, done: 0, last: 'start' },
    initial: 'running',
    states: {
      running: {
        entry: 'fill',
        always: { guard: ({ context }) => context.done === total, target: 'done' },
        on: {
          'xstate.done.actor.task': {
            actions: [
              assign({ done: ({ context }) => context.done + 1, last: ({ event }) => String(event.output) }),
              'fill',
            ],
          },
        },
      },
      done: { type: 'final' },
    },
    output: ({ context }) => context.last,
  });
}

/** Runs `total` task actors under one supervisor, at most `concurrency` at once, each asking `model`. */
export function runActors(total: number, concurrency: number, model: Model = stubModel): Promise<void> {
  const supervisor = createActor(supervisorLogic(total, concurrency, model));
  const done = new Promise<void>((resolve) => supervisor.subscribe({ complete: resolve }));
  supervisor.start();
  return done;
}

/** A chain of `n` task actors. */
export const actorChain = (n: number) => runActors(n, 1);

/** A root task, `n` tasks at most `concurrency` at once, then a join: n + 2 task actors. */
export async function actorFanOut(n: number, concurrency: number, model: Model = stubModel): Promise<void> {
  await runActors(1, 1, model);
  await runActors(n, concurrency, model);
  await runActors(1, 1, model);
}

/** The floor as a runtime of the side-by-side table (W1: a chain; W2: a fan-out; W3: a loop's iterations). */
export const actorFloor: Adapter = {
  name: 'floor (one XState actor per task)',
  async build(workload, n) {
    switch (workload) {
      case 'W1':
      case 'W3':
        return async () => {
          await actorChain(n);
          return n;
        };
      case 'W2':
        return async () => {
          await actorFanOut(n, 64);
          return n;
        };
      case 'W4':
        return async () => {
          for (let i = 0; i < n; i += 1) await runActors(3, 1);
          return Math.ceil(n / 2);
        };
    }
  },
};
