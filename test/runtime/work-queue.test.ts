import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../src/runtime/engine/work-queue.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('work queue', () => {
  it('runs operations in order and yields to the event loop after each slice', async () => {
    const queue = new WorkQueue(4);
    const ran: number[] = [];
    for (let i = 0; i < 10; i += 1) queue.push(() => ran.push(i));
    queue.flush();
    expect(ran).toEqual([0, 1, 2, 3]);
    await queue.whenDrained();
    expect(ran).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('counts an operation that queues the next: a pump of 10 starts yields after each slice', async () => {
    const queue = new WorkQueue(4);
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
    const queue = new WorkQueue(32);
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
    const queue = new WorkQueue(32);
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
