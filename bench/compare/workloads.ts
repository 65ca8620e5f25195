/**
 * The workloads every runtime implements, and the contract an adapter meets.
 *
 *   W1  a chain of N steps, each getting the previous step's output
 *   W2  one start step → N parallel steps → one join step that receives all N outputs
 *   W3  a loop of one step, repeated until a counter reaches N
 *   W4  a flow whose router chooses between two branches, run N times (per-run overhead)
 *
 * Every step calls the instant stub model below: no timers, one resolved promise, a short string.
 */

/** The workloads, in table order. */
export const WORKLOADS = ['W1', 'W2', 'W3', 'W4'] as const;
export type Workload = (typeof WORKLOADS)[number];

/** The instant stub model every step calls: one awaited resolved promise, then a short string. */
export async function stubModel(input: string): Promise<string> {
  await Promise.resolve();
  return `ok:${input.length % 10}`;
}

/**
 * What a runtime provides for one workload at one size: `build` may do untimed set-up (define and
 * compile the graph) and returns `run`, which runs the workload once and resolves with what the
 * harness checks:
 *   W1: the number of steps that ran, in order (N);
 *   W2: how many outputs the join received (N);
 *   W3: the counter when the loop stopped (N);
 *   W4: how many runs took the "left" branch (N / 2, rounded up: run i goes left when i is even).
 */
export interface Adapter {
  name: string;
  build(workload: Workload, n: number): Promise<() => Promise<number>>;
}

/** The value a correct run of `workload` at size `n` resolves with. */
export function expected(workload: Workload, n: number): number {
  return workload === 'W4' ? Math.ceil(n / 2) : n;
}
