/**
 * statecrew's per-task cost against the floor of one XState actor per task run under a supervisor
 * machine, alternated run by run in this one process:
 *   floor        a supervisor machine; per task one minimal machine actor created with the supervisor
 *                as parent (statecrew's layout), whose work runs outside it and comes back as an event;
 *                no events, no bookkeeping, no results
 *   statecrew    a Crew doing the same workload with an instant policy
 * Workloads: a sequential chain of N tasks; a graph root → N → join with maxConcurrency 64.
 * Run: npx tsx bench/floor-ratio.ts [N] [pairs]
 */
import { type AnyActorRef, assign, createActor, enqueueActions, setup } from 'xstate';
import { Agent, Crew, Task } from '../src/index.js';

const N = Number(process.argv[2] ?? 10_000);
const PAIRS = Number(process.argv[3] ?? 7);
const CONCURRENCY = 64;
const instant = async (input: string) => `${input}.`;

/** A task run: `running` asks for its work (outside the actor) and completes on its outcome. */
const taskLogic = setup({
  types: { context: {} as { output: string }, events: {} as { type: 'DONE'; output: string } },
}).createMachine({
  context: { output: '' },
  initial: 'running',
  states: {
    running: {
      entry: ({ self }) => {
        void instant('x').then((output) => self.send({ type: 'DONE', output }));
      },
      on: { DONE: { target: 'completed', actions: assign({ output: ({ event }) => event.output }) } },
    },
    completed: { type: 'final' },
  },
});

type Spawn = (parent: AnyActorRef) => void;
const spawnTask: Spawn = (parent) => createActor(taskLogic, { id: 'task', parent }).start();

/** A supervisor that starts `total` tasks, at most `concurrency` at once, and ends when all finished. */
function floorSupervisor(total: number, concurrency: number) {
  return setup({
    types: { context: {} as { started: number; done: number } },
    actions: {
      fill: enqueueActions(({ context, self, enqueue }) => {
        let started = context.started;
        while (started < total && started - context.done < concurrency) {
          started += 1;
          queueMicrotask(() => spawnTask(self));
        }
        enqueue.assign({ started });
      }),
    },
  }).createMachine({
    context: { started: 0, done: 0 },
    initial: 'running',
    states: {
      running: {
        entry: 'fill',
        always: { guard: ({ context }) => context.done === total, target: 'done' },
        on: {
          'xstate.done.actor.task': {
            actions: [assign({ done: ({ context }) => context.done + 1 }), 'fill'],
          },
        },
      },
      done: { type: 'final' },
    },
  });
}

async function floorRun(total: number, concurrency: number): Promise<void> {
  const supervisor = createActor(floorSupervisor(total, concurrency));
  const done = new Promise<void>((resolve) => supervisor.subscribe({ complete: resolve }));
  supervisor.start();
  await done;
}

const floorChain = () => floorRun(N, 1);
/** Root, then N at 64 at a time, then the join: the same N + 2 actors as the crew. */
const floorGraph = async () => {
  await floorRun(1, 1);
  await floorRun(N, CONCURRENCY);
  await floorRun(1, 1);
};

const worker = new Agent({ role: 'W', llm: (_prompt, context) => instant(context) });
const chainCrew = new Crew({
  tasks: Array.from({ length: N }, (_, i) => new Task({ name: `t${i}`, description: 'x', agent: worker })),
});
const root = new Task({ name: 'root', description: 'x', agent: worker });
const middle = Array.from(
  { length: N },
  (_, i) => new Task({ name: `m${i}`, description: 'x', agent: worker, context: [root] }),
);
const graphCrew = new Crew({
  tasks: [root, ...middle, new Task({ name: 'join', description: 'x', agent: worker, context: middle })],
  process: 'graph',
  maxConcurrency: CONCURRENCY,
});
const crewRun = (crew: Crew) => async () => {
  const out = await crew.kickoff();
  if (out.status !== 'completed') throw new Error(out.status);
};

async function timed(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function compare(name: string, tasks: number, floor: () => Promise<void>, crew: () => Promise<void>) {
  for (let i = 0; i < 2; i += 1) {
    await floor();
    await crew();
  }
  const floorMs: number[] = [];
  const crewMs: number[] = [];
  const ratios: number[] = [];
  for (let p = 0; p < PAIRS; p += 1) {
    const [a, b] = p % 2 === 0 ? [floor, crew] : [crew, floor];
    const first = await timed(a);
    const second = await timed(b);
    const [f, c] = p % 2 === 0 ? [first, second] : [second, first];
    floorMs.push(f);
    crewMs.push(c);
    ratios.push(c / f);
  }
  const us = (ms: number) => ((ms * 1000) / tasks).toFixed(1);
  console.log(
    `${name.padEnd(34)} floor ${us(median(floorMs))} µs/task  statecrew ${us(median(crewMs))} µs/task  ratio ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
  );
}

console.log(`node ${process.version}, N = ${N}, ${PAIRS} alternated pairs, medians`);
await compare(`sequential chain of ${N}`, N, floorChain, crewRun(chainCrew));
await compare(`graph root → ${N} → join, 64 at once`, N + 2, floorGraph, crewRun(graphCrew));
