import { describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, type ProcessKind, Task } from '../../src/index.js';
import { processes } from '../../src/runtime/processes/registry.js';

const N = 2_000;

/** Counts the macrotask turns the host gets while `work` runs: a frozen loop gets none. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  running = false;
  return turns;
}

function bigCrew(process: ProcessKind) {
  const worker = new Agent({ role: 'W', llm: () => 'ok' }); // instant: answers on the microtask queue
  const tasks = Array.from(
    { length: N },
    (_, i) => new Task({ name: `t${i}`, description: `t${i}`, agent: worker }),
  );
  if (process === 'graph') for (let i = 1; i < N; i += 1) (tasks[i] as Task).context = [tasks[0] as Task];
  return new Crew({
    tasks,
    agents: [worker],
    process,
    maxConcurrency: N,
    manager: { allocate: () => 'W', synthesize: () => 'done' },
    loop: { condition: 'done', judge: () => 'YES', maxIterations: 1 },
  });
}

describe('a responsive event loop', () => {
  it.each(Object.keys(processes) as ProcessKind[])(
    'lets the host run between slices of a %s crew of 2,000 instant tasks',
    async (process) => {
      const crew = bigCrew(process);
      let out: Awaited<ReturnType<Crew['kickoff']>> | undefined;
      const turns = await turnsDuring(async () => {
        out = await crew.kickoff();
      });
      expect(out?.status).toBe('completed');
      expect(out?.nodes).toHaveLength(N);
      // The host gets a turn at least every 64 task runs (a frozen loop gets none).
      expect(turns).toBeGreaterThanOrEqual(N / 64);
    },
    30_000,
  );

  it('lets the host run during a flow of 2,000 instant steps', async () => {
    const flow = createFlow({ name: 'chain', initialState: {} }).start('s0', () => 0);
    for (let i = 1; i < N; i += 1) flow.listen(`s${i}`, `s${i - 1}`, () => i);
    let trail = 0;
    const turns = await turnsDuring(async () => {
      trail = (await flow.kickoff()).trail.length;
    });
    expect(trail).toBe(N);
    expect(turns).toBeGreaterThanOrEqual(N / 64);
  }, 30_000);
});
