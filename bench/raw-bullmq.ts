/**
 * Raw BullMQ as the queue benchmarks' baseline: no-op jobs added with `Queue.add` and awaited through
 * one `QueueEvents` (its `completed` event), the same shape as a crew's conversations on a fleet.
 */
import { randomUUID } from 'node:crypto';
import { type ConnectionOptions, Queue, QueueEvents } from 'bullmq';

/** A raw BullMQ client of one queue: runs of no-op jobs, and its close. */
export interface RawBullmq {
  /** Adds `tasks` no-op jobs, `inFlight` at a time, each awaited until a worker completed it. */
  run(tasks: number, inFlight: number): Promise<unknown>;
  close(): Promise<unknown>;
}

/** Opens a raw BullMQ client of queue `name` (a new queue: its events are read from the start). */
export async function openRawBullmq(name: string, connection: ConnectionOptions): Promise<RawBullmq> {
  const queue = new Queue(name, { connection });
  // From the stream's start (the queue is new): no event is missed before the first read.
  const events = new QueueEvents(name, { connection, lastEventId: '0-0' });
  const waiting = new Map<string, () => void>();
  events.on('completed', ({ jobId }) => {
    waiting.get(jobId)?.();
    waiting.delete(jobId);
  });
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
  return {
    run(tasks, inFlight) {
      const run = randomUUID();
      let next = 0;
      const lane = async () => {
        while (next < tasks) {
          const jobId = `${run}.${next}`;
          next += 1;
          const done = new Promise<void>((resolved) => waiting.set(jobId, resolved));
          await queue.add(
            'noop',
            { i: next },
            { jobId, attempts: 1, removeOnComplete: true, removeOnFail: 1000 },
          );
          await done;
        }
      };
      return Promise.all(Array.from({ length: inFlight }, lane));
    },
    close: () => Promise.all([events.close(), queue.close()]),
  };
}
