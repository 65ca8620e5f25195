import { describe, expect, it } from 'vitest';
import { HostTurn } from '../../src/runtime/run/host-turn.js';
import { WorkQueue } from '../../src/runtime/run/work-queue.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('work queue', () => {
  it('runs operations in order and yields to the event loop after each slice', async () => {
    const queue = new WorkQueue(new HostTurn(4));
    const ran: number[] = [];
    for (let i = 0; i < 10; i += 1) queue.push(() => ran.push(i));
    queue.flush();
    expect(ran).toEqual([0, 1, 2, 3]);
    await queue.whenDrained();
    expect(ran).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('counts an operation that queues the next: a pump of 10 starts yields after each slice', async () => {
    const queue = new WorkQueue(new HostTurn(4));
    const started: number[] = [];
    // Like a graph supervisor's pump: each operation starts one run and queues the next start.
    const pump = (i: number) => {
      started.push(i);
      if (i < 9) queue.push(() => pump(i + 1));
    };
    queue.push(() => pump(0));
    queue.flush();
    expect(started).toEqual([0, 1, 2, 3]);
    await nextTurn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    await queue.whenDrained();
    expect(started).toHaveLength(10);
  });
});

describe('work queue held by a write', () => {
  it('runs nothing after a held write until it lands, then goes on in order', async () => {
    const queue = new WorkQueue(new HostTurn(32));
    const ran: string[] = [];
    let land = () => {};
    const write = new Promise<void>((resolve) => {
      land = resolve;
    });
    queue.push(() => {
      ran.push('complete a');
      queue.hold(write);
    });
    queue.push(() => ran.push('start b, which reads a'));
    queue.flush();
    expect(ran).toEqual(['complete a']);
    queue.flush(); // a flush while held does nothing
    await nextTurn();
    expect(ran).toEqual(['complete a']);
    let drained = false;
    void queue.whenDrained().then(() => {
      drained = true;
    });
    land();
    await queue.whenDrained();
    expect(ran).toEqual(['complete a', 'start b, which reads a']);
    expect(drained).toBe(true);
  });

  it('is not drained while a write is held, even with nothing queued', async () => {
    const queue = new WorkQueue(new HostTurn(32));
    let land = () => {};
    queue.hold(
      new Promise<void>((resolve) => {
        land = resolve;
      }),
    );
    let drained = false;
    void queue.whenDrained().then(() => {
      drained = true;
    });
    await nextTurn();
    expect(drained).toBe(false);
    land();
    await queue.whenDrained();
    expect(drained).toBe(true);
  });
});

describe('work queues sharing a turn of the event loop', () => {
  it('run their operations together within one share per turn, in the order they waited', async () => {
    const turn = new HostTurn(4);
    const a = new WorkQueue(turn);
    const b = new WorkQueue(turn);
    const ran: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      a.push(() => ran.push(`a${i}`));
      b.push(() => ran.push(`b${i}`));
    }
    a.flush();
    b.flush();
    // a spent the whole share of this turn: b waits for the next.
    expect(ran).toEqual(['a0', 'a1', 'a2', 'a3']);
    await nextTurn();
    expect(ran).toEqual(['a0', 'a1', 'a2', 'a3', 'b0', 'b1', 'b2', 'b3']);
    await Promise.all([a.whenDrained(), b.whenDrained()]);
  });

  it('take turns in the order they waited: a queue that yields again waits behind the others', async () => {
    const turn = new HostTurn(2);
    const queues = [new WorkQueue(turn), new WorkQueue(turn), new WorkQueue(turn)];
    const perTurn: string[][] = [];
    let current: string[] = [];
    queues.forEach((queue, q) => {
      for (let i = 0; i < 4; i += 1) queue.push(() => current.push(`q${q}.${i}`));
    });
    for (const queue of queues) queue.flush();
    for (let i = 0; i < 6; i += 1) {
      perTurn.push(current);
      current = [];
      await nextTurn();
    }
    // q0 spends the first turn and waits first; q1 and q2 find the turn spent and wait behind it.
    expect(perTurn).toEqual([
      ['q0.0', 'q0.1'],
      ['q0.2', 'q0.3'],
      ['q1.0', 'q1.1'],
      ['q2.0', 'q2.1'],
      ['q1.2', 'q1.3'],
      ['q2.2', 'q2.3'],
    ]);
  });

  it('counts a held write for several operations of the shared turn', () => {
    const turn = new HostTurn(32);
    const queue = new WorkQueue(turn);
    queue.hold(Promise.resolve());
    expect(turn.exhausted).toBe(false);
    for (let i = 0; i < 3; i += 1) queue.hold(Promise.resolve());
    // Four writes of 8 spend the share of 32.
    expect(turn.exhausted).toBe(true);
  });
});

describe('a start that waits for room in the turn', () => {
  it('starts at once while the turn has room, then in later turns as room comes', async () => {
    const turn = new HostTurn(16);
    const started: number[] = [];
    const results = Array.from({ length: 6 }, (_, i) =>
      turn.whenRoom(() => {
        started.push(i);
        turn.spend(8);
        return Promise.resolve(i);
      }),
    );
    expect(started).toEqual([0, 1]);
    await nextTurn();
    expect(started).toEqual([0, 1, 2, 3]);
    await expect(Promise.all(results)).resolves.toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('rejects with what a start throws, now or in a later turn', async () => {
    const turn = new HostTurn(1);
    const boom = new Error('bad options');
    await expect(
      turn.whenRoom(() => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    turn.spend(1);
    const later = turn.whenRoom(() => {
      throw boom;
    });
    await expect(later).rejects.toBe(boom);
  });
});
