import { describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, MemoryStore, type ProcessKind, Task } from '../../src/index.js';
import { processes } from '../../src/runtime/processes/registry.js';
import { turnCounter } from '../helpers.js';

const N = 2_000;

/** Counts the macrotask turns the host gets while `work` runs: a frozen loop gets none. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  const turns = turnCounter();
  await work();
  return turns.stop();
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

  it('lets the host run every few steps of a stored flow: a commit counts for several operations', async () => {
    // A store whose writes land at once (as SQLite's do): without the weight of its commits, 200
    // steps ran in a handful of turns.
    const steps = 200;
    const flow = createFlow({ name: 'stored chain', initialState: {}, store: new MemoryStore() }).start(
      's0',
      () => 0,
    );
    for (let i = 1; i < steps; i += 1) flow.listen(`s${i}`, `s${i - 1}`, () => i);
    let trail = 0;
    const turns = await turnsDuring(async () => {
      trail = (await flow.kickoff()).trail.length;
    });
    expect(trail).toBe(steps);
    expect(turns).toBeGreaterThanOrEqual(steps / 5);
  }, 30_000);

  it('lets the host run every few tasks of a stored crew', async () => {
    const tasks = 200;
    const worker = new Agent({ role: 'W', llm: () => 'ok' });
    const crew = new Crew({
      tasks: Array.from(
        { length: tasks },
        (_, i) => new Task({ name: `t${i}`, description: `t${i}`, agent: worker }),
      ),
      store: new MemoryStore(),
    });
    let completed = 0;
    const turns = await turnsDuring(async () => {
      completed = (await crew.kickoff()).nodes.length;
    });
    expect(completed).toBe(tasks);
    expect(turns).toBeGreaterThanOrEqual(tasks / 5);
  }, 30_000);
});
