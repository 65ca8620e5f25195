import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../src/runtime/work-queue.js';

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
