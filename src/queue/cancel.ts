import type { Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { cancelChannel, connected, type ResolvedQueueOptions, runCancelChannel } from './connection.js';

/**
 * How often, in ms, the job of a run that runs on is asked again to abort it: a worker whose
 * subscription was down for a moment (Pub/Sub keeps nothing), or one that took the job over from a
 * worker that died, hears it then.
 */
const ASK_AGAIN_MS = 1000;

/** What the workers are asked on a run queue's cancel channel: abort the run of job `id`, for `reason`. */
interface RunCancel {
  id: string;
  reason: string;
}

/** A message of the run cancel channel, or undefined for one that is not (another client's). */
function readRunCancel(message: string): RunCancel | undefined {
  try {
    const { id, reason } = JSON.parse(message) as Partial<RunCancel>;
    return typeof id === 'string' && typeof reason === 'string' ? { id, reason } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Asks the worker whose job runs run `id` to abort it (BullMQ's `cancelJob` there, reached through
 * `publish`), and resolves true once the job ended, whichever way (the run kept as aborted, or
 * settled first), or `queue` closed while it waited; resolves false, asking nothing, when no worker
 * runs that job now — the run is held by another process, or its job is over.
 */
export async function cancelRunJob(
  queue: Queue,
  events: QueueEvents,
  publish: (message: string) => Promise<unknown>,
  id: string,
  reason: string,
): Promise<boolean> {
  const job = await queue.getJob(id);
  if (job === undefined || !(await job.isActive())) return false;
  // Heard through the queue's events; a job already gone (removed on completion) has ended too.
  const ended = job.waitUntilFinished(events).then(
    () => true,
    () => true,
  );
  const message = JSON.stringify({ id, reason } satisfies RunCancel);
  const ask = () => publish(message).catch(() => 0);
  await ask();
  const again = setInterval(() => void ask(), ASK_AGAIN_MS);
  try {
    return await ended;
  } finally {
    clearInterval(again);
  }
}

/**
 * Subscribes a worker to the cancel channels: a conversation's job id on its queue's, a run's
 * {@link RunCancel} on its run queue's (when it runs whole runs); each cancels that job if this worker
 * holds it, and is nothing to the others. Resolves with the subscriber (the worker disconnects it).
 */
export async function listenForCancels(
  o: ResolvedQueueOptions,
  conversations: Worker,
  runs: Worker | undefined,
): Promise<Redis> {
  const subscriber = new Redis(o.connection);
  subscriber.on('error', () => {});
  const runChannel = runCancelChannel(o);
  subscriber.on('message', (channel: string, message: string) => {
    if (channel !== runChannel) return void conversations.cancelJob(message, 'The run was aborted');
    const asked = readRunCancel(message);
    if (asked !== undefined) runs?.cancelJob(asked.id, asked.reason);
  });
  const channels = runs === undefined ? [cancelChannel(o)] : [cancelChannel(o), runChannel];
  try {
    await connected(o.queue, subscriber.subscribe(...channels), o.connectTimeoutMs);
  } catch (error) {
    subscriber.disconnect();
    throw error;
  }
  return subscriber;
}
