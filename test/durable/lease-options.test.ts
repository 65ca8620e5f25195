import { describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, MemoryStore, type Store, Task } from '../../src/index.js';
import { createManualClock } from '../../src/testing.js';

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** A two-step flow whose second step waits for `hold` to open, telling `entered` once it runs. */
function heldFlow(store: Store, leaseMs?: number) {
  const entered = gate();
  const hold = gate();
  const flow = createFlow({
    name: 'held',
    initialState: {},
    store,
    ...(leaseMs === undefined ? {} : { leaseMs }),
  })
    .start('one', () => 'one')
    .listen('two', 'one', async ({ signal }) => {
      entered.open();
      await Promise.race([
        hold.opened,
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      ]);
      return 'two';
    });
  return { flow, entered, hold };
}

/** A one-task crew whose model waits for `hold` to open, telling `entered` once it is asked. */
function heldCrew(store: Store, leaseMs?: number) {
  const entered = gate();
  const hold = gate();
  const agent = new Agent({
    role: 'Writer',
    llm: async () => {
      entered.open();
      await hold.opened;
      return 'done';
    },
  });
  const tasks = [new Task({ name: 'write', description: 'write', agent })];
  const crew = new Crew({ name: 'held', tasks, store, ...(leaseMs === undefined ? {} : { leaseMs }) });
  return { crew, entered, hold };
}

const expiryOf = async (store: Store, id: string) => (await store.readRun(id))?.lease?.expiresAt;

describe('leaseMs: how long a run’s lease lasts without renewal', () => {
  it('is 15 s by default, the flow’s own when it has one, and a kickoff’s or resume’s over both', async () => {
    const clock = createManualClock(1_000_000);
    // The store's clock is the run's here: the expiry it sets is that clock's now plus leaseMs.
    const store = new MemoryStore(() => clock.now());
    const plain = heldFlow(store);
    const running = plain.flow.kickoff({ inputs: { id: 'a' }, clock });
    await plain.entered.opened;
    expect(await expiryOf(store, 'a')).toBe(1_000_000 + 15_000);
    plain.hold.open();
    await running;

    const own = heldFlow(store, 20_000);
    const stopper = new AbortController();
    const stopped = own.flow.kickoff({ inputs: { id: 'b' }, clock, leaseMs: 40_000, signal: stopper.signal });
    await own.entered.opened;
    expect(await expiryOf(store, 'b')).toBe(1_000_000 + 40_000);
    stopper.abort();
    await expect(stopped).rejects.toMatchObject({ code: 'aborted' });
    expect(await store.readRun('b')).toMatchObject({ status: 'aborted', lease: null });

    clock.advance(5);
    const again = heldFlow(store, 20_000);
    const resumed = again.flow.resume('b', undefined, { clock, leaseMs: 50_000 });
    await again.entered.opened;
    expect(await expiryOf(store, 'b')).toBe(1_000_005 + 50_000);
    again.hold.open();
    expect((await resumed).status).toBe('completed');
    expect(await store.readRun('b')).toMatchObject({ status: 'completed', lease: null });
  });

  it('is the crew’s own when it has one, and a kickoff’s or resume’s over it', async () => {
    const clock = createManualClock(2_000_000);
    // The store's clock is the run's here: the expiry it sets is that clock's now plus leaseMs.
    const store = new MemoryStore(() => clock.now());
    const own = heldCrew(store, 20_000);
    const running = own.crew.kickoff({ executionId: 'c', clock });
    await own.entered.opened;
    expect(await expiryOf(store, 'c')).toBe(2_000_000 + 20_000);
    own.hold.open();
    await running;

    const other = heldCrew(store, 20_000);
    const stopper = new AbortController();
    const stopped = other.crew.kickoff({ executionId: 'd', clock, leaseMs: 30_000, signal: stopper.signal });
    await other.entered.opened;
    expect(await expiryOf(store, 'd')).toBe(2_000_000 + 30_000);
    stopper.abort();
    await stopped.catch(() => undefined);
    expect((await store.readRun('d'))?.lease).toBeNull();

    const again = heldCrew(store, 20_000);
    const resumed = again.crew.resume('d', { clock, leaseMs: 45_000 });
    await again.entered.opened;
    expect(await expiryOf(store, 'd')).toBe(2_000_000 + 45_000);
    again.hold.open();
    expect((await resumed).status).toBe('completed');
  });
});
