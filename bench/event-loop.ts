/**
 * What yielding to the event loop costs, and what it buys:
 *   cost    µs per task of W1 (a sequential chain of 10,000 tasks) and W2 (root → 10,000 → join,
 *           maxConcurrency 64) with the runtime yielding every 16 operations vs never yielding,
 *           alternated run by run in this one process; medians and the median ratio.
 *   stall   the longest time the host's event loop went without a turn during a 10,000-task graph
 *           with every task in flight (maxConcurrency 10,000), with an instant model (answers on the
 *           microtask queue) and one that answers on the macrotask queue (setImmediate); yielding vs not.
 * Run: npx tsx bench/event-loop.ts [rounds]
 */
import { Agent, Crew, type Policy, Task } from '../src/index.js';
import { hostTurn, OPERATIONS_PER_TURN } from '../src/runtime/run/host-turn.js';
import { watchStalls } from './stall-probe.js';

const N = 10_000;
const rounds = Number(process.argv[2] ?? 7);
const instant: Policy = () => 'ok';
const onMacrotask: Policy = () => new Promise((resolve) => setImmediate(() => resolve('ok')));

function chain(llm: Policy): Crew {
  const worker = new Agent({ role: 'W', llm });
  return new Crew({
    tasks: Array.from({ length: N }, (_, i) => new Task({ name: `t${i}`, description: 'x', agent: worker })),
  });
}

function fanOut(llm: Policy, maxConcurrency: number): Crew {
  const worker = new Agent({ role: 'W', llm });
  const root = new Task({ name: 'root', description: 'x', agent: worker });
  const middle = Array.from(
    { length: N },
    (_, i) => new Task({ name: `m${i}`, description: 'x', agent: worker, context: [root] }),
  );
  const join = new Task({ name: 'join', description: 'x', agent: worker, context: middle });
  return new Crew({ tasks: [root, ...middle, join], process: 'graph', maxConcurrency });
}

/** Runs `crew` once; returns µs per task and the longest gap between two turns of the host's loop. */
async function measure(crew: Crew, yielding: boolean): Promise<{ perTask: number; stallMs: number }> {
  hostTurn.setShare(yielding ? OPERATIONS_PER_TURN : Number.POSITIVE_INFINITY);
  const stalls = watchStalls();
  const started = performance.now();
  const out = await crew.kickoff();
  const elapsed = performance.now() - started;
  const stallMs = stalls.stop();
  if (out.status !== 'completed') throw new Error(`run ended ${out.status}`);
  return { perTask: (elapsed * 1000) / out.nodes.length, stallMs };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function alternate(name: string, make: () => Crew) {
  const runs = {
    on: [] as { perTask: number; stallMs: number }[],
    off: [] as { perTask: number; stallMs: number }[],
  };
  const ratios: number[] = [];
  await measure(make(), true);
  await measure(make(), false);
  for (let r = 0; r < rounds; r += 1) {
    const order = r % 2 === 0 ? [true, false] : [false, true];
    const pair: Record<string, number> = {};
    for (const yielding of order) {
      const m = await measure(make(), yielding);
      (yielding ? runs.on : runs.off).push(m);
      pair[String(yielding)] = m.perTask;
    }
    ratios.push((pair.true as number) / (pair.false as number));
  }
  const fmt = (xs: { perTask: number; stallMs: number }[]) =>
    `${median(xs.map((x) => x.perTask)).toFixed(1)} µs/task, longest stall ${median(xs.map((x) => x.stallMs)).toFixed(0)} ms (max ${Math.max(...xs.map((x) => x.stallMs)).toFixed(0)})`;
  console.log(`${name}`);
  console.log(`  yielding     ${fmt(runs.on)}`);
  console.log(`  not yielding ${fmt(runs.off)}`);
  console.log(`  ratio yielding/not (median of ${rounds} pairs): ${median(ratios).toFixed(3)}`);
}

console.log(`node ${process.version}, ${rounds} alternated pairs per workload, medians`);
await alternate('W1 sequential chain, 10,000 tasks, instant model', () => chain(instant));
await alternate('W2 graph root → 10,000 → join, maxConcurrency 64, instant model', () => fanOut(instant, 64));
await alternate('graph root → 10,000 → join, all in flight, instant model', () => fanOut(instant, N + 2));
await alternate('graph root → 10,000 → join, all in flight, model on the macrotask queue', () =>
  fanOut(onMacrotask, N + 2),
);
