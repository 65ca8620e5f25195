import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import type { ConversationOutcome, ConversationProgress } from '../../src/actors/conversation-job.js';
import { resolveQueueOptions } from '../../src/queue/connection.js';
import { dispatch, JobEvents, type WaitingJob } from '../../src/queue/job-events.js';
import { noServices } from '../executors/queue-helpers.js';

/** A waiting job that records what it hears. */
function recorder() {
  const reported: ConversationProgress[] = [];
  const outcomes: ConversationOutcome[] = [];
  const job: WaitingJob = {
    report: (progress) => reported.push(progress),
    resolve: (outcome) => outcomes.push(outcome),
  };
  return { job, reported, outcomes };
}

const call: ConversationProgress = {
  type: 'model.call',
  usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3, calls: 1 },
  durationMs: 4,
};
const delta: ConversationProgress = { type: 'model.delta', delta: 'he' };

describe('dispatch: an event to the job that waits for it', () => {
  it('passes over added, waiting and active events, and leaves the job waiting', () => {
    const { job, reported, outcomes } = recorder();
    const waiting = new Map([['j1', job]]);
    for (const event of ['added', 'waiting', 'active'])
      dispatch(['event', event, 'jobId', 'j1', 'prev', 'waiting'], waiting);
    expect(reported).toEqual([]);
    expect(outcomes).toEqual([]);
    expect(waiting.has('j1')).toBe(true);
  });

  it('ends a completed job with its outcome, its recorded calls reported first (not its live progress)', () => {
    const { job, reported, outcomes } = recorder();
    const waiting = new Map([['j1', job]]);
    const returnvalue = JSON.stringify({ outcome: { ok: true, text: 'done' }, progress: [delta, call] });
    dispatch(['event', 'completed', 'jobId', 'j1', 'returnvalue', returnvalue, 'prev', 'active'], waiting);
    expect(reported).toEqual([call]);
    expect(outcomes).toEqual([{ ok: true, text: 'done' }]);
    expect(waiting.has('j1')).toBe(false);
  });

  it('does not read the result of a job no one here waits for (another executor’s)', () => {
    const waiting = new Map<string, WaitingJob>();
    // Not JSON: reading it would throw.
    expect(() =>
      dispatch(['event', 'completed', 'jobId', 'elsewhere', 'returnvalue', '{not json'], waiting),
    ).not.toThrow();
  });

  it('ends a job BullMQ failed as a retryable failure naming its reason', () => {
    const { job, outcomes } = recorder();
    const waiting = new Map([['j1', job]]);
    dispatch(
      ['event', 'failed', 'jobId', 'j1', 'failedReason', 'job stalled more than allowable limit'],
      waiting,
    );
    expect(outcomes).toEqual([
      {
        ok: false,
        failure: {
          message: 'The queue failed the job: job stalled more than allowable limit',
          retryable: true,
        },
      },
    ]);
    expect(waiting.has('j1')).toBe(false);
  });

  it('reports live progress as it comes and keeps the job waiting; a recorded call in progress waits for the result', () => {
    const { job, reported, outcomes } = recorder();
    const waiting = new Map([['j1', job]]);
    dispatch(['event', 'progress', 'jobId', 'j1', 'data', JSON.stringify(delta)], waiting);
    dispatch(['event', 'progress', 'jobId', 'j1', 'data', JSON.stringify(call)], waiting);
    expect(reported).toEqual([delta]);
    expect(outcomes).toEqual([]);
    expect(waiting.has('j1')).toBe(true);
  });

  it('finds the event name wherever it stands among the fields', () => {
    const { job, outcomes } = recorder();
    dispatch(['jobId', 'j1', 'event', 'failed', 'failedReason', 'lost'], new Map([['j1', job]]));
    expect(outcomes).toHaveLength(1);
  });
});

describe.skipIf(noServices)('JobEvents on a real Redis', () => {
  it('reads the events added after its start id, and closes during a blocking read without a loss', async () => {
    const queue = `job-events-${randomUUID()}`;
    const o = resolveQueueOptions('test', { queue });
    const redis = new Redis({ host: '127.0.0.1', port: 6379 });
    const key = `${o.prefix}:${queue}:events`;
    const before = await redis.xadd(key, '*', 'event', 'completed', 'jobId', 'old', 'returnvalue', '{no');
    const { job, outcomes } = recorder();
    const lose = vi.fn();
    const events = new JobEvents(o, before as string, new Map([['j1', job]]), lose);
    try {
      await events.waitUntilReady();
      const returnvalue = JSON.stringify({ outcome: { ok: true, text: 'A' }, progress: [] });
      await redis.xadd(key, '*', 'event', 'active', 'jobId', 'j1', 'prev', 'waiting');
      await redis.xadd(key, '*', 'event', 'completed', 'jobId', 'j1', 'returnvalue', returnvalue);
      await vi.waitFor(() => expect(outcomes).toEqual([{ ok: true, text: 'A' }]), { timeout: 10_000 });
    } finally {
      await events.close();
      await redis.del(key);
      await redis.quit();
    }
    expect(lose).not.toHaveBeenCalled();
  });
});
