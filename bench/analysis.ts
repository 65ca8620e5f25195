/**
 * Cost of flow proof per step, to show it is linear: the median ms of `flow.analyze()` and
 * `flow.toMachine()` over REPS runs, and ms per step, for each shape at 500, 1,000, 2,000 and 4,000 steps:
 *   chain        a start step and N-1 listeners, each on the one before
 *   fanout       a start step and N-1 listeners on it (one round of N-1 steps)
 *   fanout-join  a start step, N-2 listeners on it and a step on `and(...)` of all of them
 * If ms per step stays flat as N doubles, the cost is linear.
 *
 * Run: npx tsx bench/analysis.ts                       (every shape and size, 5 runs each)
 *      npx tsx bench/analysis.ts chain 500 1000 --reps=3
 */
import { and, createFlow } from '../src/index.js';

const SHAPES = ['chain', 'fanout', 'fanout-join'] as const;
type Shape = (typeof SHAPES)[number];
type AnyFlow = { analyze(): unknown; toMachine(): unknown };

const noop = () => undefined;

/** A flow of `steps` steps in the given shape. */
function build(shape: Shape, steps: number): AnyFlow {
  let flow = createFlow({ name: shape, initialState: {} }).start('s0', noop);
  const listeners = shape === 'fanout-join' ? steps - 2 : steps - 1;
  for (let i = 1; i <= listeners; i += 1) {
    flow = flow.listen(`s${i}`, shape === 'chain' ? `s${i - 1}` : 's0', noop);
  }
  if (shape === 'fanout-join') {
    const branches = Array.from({ length: listeners }, (_, i) => `s${i + 1}`);
    flow = flow.listen('join', and(...branches), noop);
  }
  return flow;
}

/** The median of `reps` timings of `run`, in ms. */
function median(reps: number, run: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < reps; i += 1) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

const args = process.argv.slice(2);
const repsArg = args.find((a) => a.startsWith('--reps='));
const reps = repsArg === undefined ? 5 : Number(repsArg.slice('--reps='.length));
const shapes = args.filter((a): a is Shape => (SHAPES as readonly string[]).includes(a));
const sizes = args.filter((a) => /^\d+$/.test(a)).map(Number);

// Warm up the JIT on a small flow of each shape, so the first measured size is not penalised.
for (const shape of SHAPES) for (let i = 0; i < 20; i += 1) build(shape, 200).analyze();

const fmt = (ms: number, digits: number) => ms.toFixed(digits).padStart(9);
console.log(`median of ${reps} runs\n`);
console.log('shape        steps  analyze ms  µs/step  toMachine ms  µs/step');
for (const shape of shapes.length > 0 ? shapes : SHAPES) {
  for (const steps of sizes.length > 0 ? sizes : [500, 1000, 2000, 4000]) {
    const flow = build(shape, steps);
    const analyze = median(reps, () => flow.analyze());
    const machine = median(reps, () => flow.toMachine());
    console.log(
      `${shape.padEnd(11)} ${String(steps).padStart(6)} ${fmt(analyze, 1)}  ${fmt((analyze / steps) * 1000, 1)}` +
        `    ${fmt(machine, 1)}  ${fmt((machine / steps) * 1000, 1)}`,
    );
  }
}
