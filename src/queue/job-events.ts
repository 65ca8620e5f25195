import { Redis } from 'ioredis';
import type { ConversationOutcome, ConversationProgress } from '../actors/conversation-job.js';
import type { ResolvedQueueOptions } from './connection.js';

/** What a worker returns for a job: the outcome, with every model and tool call of the run that completed it. */
export interface JobResult {
  outcome: ConversationOutcome;
  progress: ConversationProgress[];
}

/** A job on the queue whose end an attempt waits for: where its progress and its outcome go. */
export interface WaitingJob {
  report(progress: ConversationProgress): void;
  resolve(outcome: ConversationOutcome): void;
}

/** How long one blocking read of the events waits before it reads again, in ms (BullMQ's own). */
const BLOCK_MS = 10_000;
/** How long closing waits for its connection to end. */
const CLOSE_GRACE_MS = 2000;

/** Whether a job's progress goes over the queue as it happens (else with its result). */
export function isLive(progress: ConversationProgress): boolean {
  return progress.type === 'model.delta' || progress.type === 'tool.progress';
}

/**
 * The events of a queue as an executor reads them: one blocking `XREAD` at a time of the queue's
 * events stream (BullMQ's), from `lastEventId` on, on its own connection. Of each event only what a
 * waiting job needs is read: its end (`completed`, `failed`) and its live progress; every other event
 * (added, waiting, active, …) and the events of jobs this executor does not wait for are passed over
 * unparsed. A connection that errs or closes (not by `close`) is reported to `lose`.
 */
export class JobEvents {
  readonly #redis: Redis;
  readonly #key: string;
  readonly #ready: Promise<void>;
  #closing = false;

  constructor(
    o: ResolvedQueueOptions,
    lastEventId: string,
    readonly waiting: Map<string, WaitingJob>,
    lose: (error: unknown) => void,
  ) {
    this.#key = `${o.prefix}:${o.queue}:events`;
    this.#redis = new Redis({ ...o.connection, lazyConnect: true });
    this.#redis.on('error', (error: unknown) => {
      if (!this.#closing) lose(error);
    });
    this.#redis.on('close', () => {
      if (!this.#closing) lose(new Error('the connection to Redis closed'));
    });
    this.#ready = this.#redis.connect().then(() => {
      void this.#read(lastEventId).catch((error: unknown) => {
        if (!this.#closing) lose(error);
      });
    });
    this.#ready.catch(() => {});
  }

  /** Resolves once its connection is up and it reads. */
  waitUntilReady(): Promise<void> {
    return this.#ready;
  }

  /**
   * Stops reading and drops its connection (a blocked read cannot be quit gracefully); resolves once
   * it ended, or after a grace when it was not up (a connection waiting to reconnect never ends).
   */
  async close(): Promise<void> {
    this.#closing = true;
    const up = ['connecting', 'connect', 'ready'].includes(this.#redis.status);
    const ended = new Promise<void>((resolve) => {
      this.#redis.once('end', resolve);
      setTimeout(resolve, up ? CLOSE_GRACE_MS : 0).unref();
    });
    this.#redis.disconnect();
    await ended;
  }

  async #read(from: string): Promise<void> {
    let id = from;
    while (!this.#closing) {
      const read = (await this.#redis.xread('BLOCK', BLOCK_MS, 'STREAMS', this.#key, id)) as
        | [string, [string, string[]][]][]
        | null;
      const entries = read?.[0]?.[1];
      if (entries === undefined) continue;
      for (const [entryId, fields] of entries) {
        id = entryId;
        dispatch(fields, this.waiting);
      }
    }
  }
}

/** The value of `name` among an event's fields (`[name, value, name, value, …]`). */
function field(fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

/** Hands one event to the job that waits for it, if any waits: its progress, or its end. */
export function dispatch(fields: string[], waiting: Map<string, WaitingJob>): void {
  // BullMQ writes `event` first; the look is general all the same.
  const event = fields[0] === 'event' ? fields[1] : field(fields, 'event');
  if (event !== 'completed' && event !== 'failed' && event !== 'progress') return;
  const jobId = field(fields, 'jobId');
  const pending = jobId === undefined ? undefined : waiting.get(jobId);
  if (pending === undefined || jobId === undefined) return;
  if (event === 'progress') {
    const progress = JSON.parse(field(fields, 'data') ?? 'null') as ConversationProgress | null;
    // Streamed text and progress are shown as they come; calls are recorded from the result.
    if (typeof progress === 'object' && progress !== null && isLive(progress)) pending.report(progress);
    return;
  }
  waiting.delete(jobId);
  if (event === 'failed') {
    // A worker's processor never throws: BullMQ failed the job itself (stalled too often, a lost lock).
    const reason = field(fields, 'failedReason') ?? '';
    pending.resolve({
      ok: false,
      failure: { message: `The queue failed the job: ${reason}`, retryable: true },
    });
    return;
  }
  const result = JSON.parse(field(fields, 'returnvalue') ?? 'null') as JobResult;
  for (const progress of result.progress) if (!isLive(progress)) pending.report(progress);
  pending.resolve(result.outcome);
}
