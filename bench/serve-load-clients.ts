/**
 * The clients of `bench/serve-load.ts`: event-stream readers (fetch with a streaming body, SSE parsed
 * here) that check what they got, and a pool that POSTs runs.
 */
import { isDeepStrictEqual } from 'node:util';

/** The wall clock in ms with a fraction: what an event's `at` (epoch ms) is compared with. */
export const wallMs = () => performance.timeOrigin + performance.now();

/** One client's read of an event stream. */
export interface StreamRead {
  /** The SSE ids it got, in order. */
  ids: number[];
  /** Receive time − the event's own `at`, in ms, for the live events (see `liveFrom`). */
  latencies: number[];
  /** When it got its last message (wall ms). */
  lastAt: number;
  /** The last event's type and, for `run.completed`, its status. */
  lastType: string | undefined;
  /** Why it stopped early (an HTTP status, a network error, the time limit), if it did. */
  error: string | undefined;
}

/** What every reader of one run shares: the first copy of each event's data, to compare the rest with. */
export class SharedCopies {
  readonly first = new Map<number, string>();
  differing = 0;

  see(id: number, data: string): void {
    const seen = this.first.get(id);
    if (seen === undefined) this.first.set(id, data);
    else if (seen !== data) this.differing += 1;
  }
}

interface ReadOptions {
  copies: SharedCopies;
  /** Events stamped at or after this wall time (ms) count as live: their latency is kept. */
  liveFrom: () => number;
  signal: AbortSignal;
  /** Called with the first message. */
  onFirst?: () => void;
}

/** Reads `url` as server-sent events until the server closes it (or `signal` aborts). */
export async function readEventStream(url: string, options: ReadOptions): Promise<StreamRead> {
  const read: StreamRead = { ids: [], latencies: [], lastAt: 0, lastType: undefined, error: undefined };
  try {
    const response = await fetch(url, { signal: options.signal });
    if (response.status !== 200 || response.body === null) {
      read.error = `HTTP ${response.status}`;
      await response.body?.cancel();
      return read;
    }
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of response.body) {
      const now = wallMs();
      text += decoder.decode(chunk, { stream: true });
      let end = text.indexOf('\n\n');
      while (end !== -1) {
        takeFrame(text.slice(0, end), now, read, options);
        text = text.slice(end + 2);
        end = text.indexOf('\n\n');
      }
    }
  } catch (error) {
    read.error = error instanceof Error ? error.name : String(error);
  }
  return read;
}

/** Takes one SSE frame: its `id:` and `data:` lines (a `: alive` comment has neither). */
function takeFrame(frame: string, now: number, read: StreamRead, options: ReadOptions): void {
  let id: number | undefined;
  let data: string | undefined;
  for (const line of frame.split('\n')) {
    if (line.startsWith('id: ')) id = Number(line.slice(4));
    else if (line.startsWith('data: ')) data = line.slice(6);
  }
  if (id === undefined || data === undefined) return;
  if (read.ids.length === 0) options.onFirst?.();
  read.ids.push(id);
  read.lastAt = now;
  options.copies.see(id, data);
  const event = JSON.parse(data) as { type: string; at: number; status?: string };
  read.lastType = event.status === undefined ? event.type : `${event.type}:${event.status}`;
  if (event.at >= options.liveFrom()) read.latencies.push(now - event.at);
}

/** How a group of reads of one run went against the run's `count` events. */
export interface StreamCheck {
  /** Clients that got 1..count exactly, in order, and ended on the run's end. */
  complete: number;
  /** Clients that stopped early with an error. */
  failed: number;
  /** Clients that missed events, got one twice, out of order, or ended elsewhere. */
  wrong: number;
  /** Events whose data differed between clients. */
  differing: number;
  /** The first few problems, in words. */
  notes: string[];
}

/** Checks that each read holds every event of the run once, in order, ending on `run.completed`. */
export function checkReads(reads: StreamRead[], count: number, copies: SharedCopies): StreamCheck {
  const check: StreamCheck = { complete: 0, failed: 0, wrong: 0, differing: copies.differing, notes: [] };
  reads.forEach((read, client) => {
    const inOrder = read.ids.length === count && read.ids.every((id, i) => id === i + 1);
    const ended = read.lastType?.startsWith('run.completed') === true;
    if (read.error !== undefined) check.failed += 1;
    else if (inOrder && ended) check.complete += 1;
    else check.wrong += 1;
    if ((read.error !== undefined || !inOrder || !ended) && check.notes.length < 5) {
      const unique = new Set(read.ids).size;
      check.notes.push(
        `client ${client}: ${read.ids.length} events (${unique} distinct) of ${count}, last ${read.lastType}, error ${read.error ?? 'none'}`,
      );
    }
  });
  return check;
}

/** Events whose data the live readers and the replaying readers got differently (as JSON values). */
export function compareCopies(live: SharedCopies, replay: SharedCopies): number {
  let differing = Math.abs(live.first.size - replay.first.size);
  for (const [id, data] of live.first) {
    const again = replay.first.get(id);
    if (again === undefined || (again !== data && !isDeepStrictEqual(JSON.parse(again), JSON.parse(data))))
      differing += 1;
  }
  return differing;
}

/** One `POST /runs`: how long it took and the status it answered. */
export interface Submitted {
  ms: number;
  status: number;
  id: string | undefined;
}

/** POSTs `count` runs of `definition`, `concurrency` at a time. */
export async function submitRuns(
  url: string,
  definition: string,
  count: number,
  concurrency: number,
): Promise<Submitted[]> {
  const results: Submitted[] = [];
  let next = 0;
  const body = JSON.stringify({ definition, inputs: {} });
  const lane = async () => {
    while (next < count) {
      next += 1;
      const started = performance.now();
      try {
        const response = await fetch(`${url}/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const answer = (await response.json()) as { id?: string };
        results.push({ ms: performance.now() - started, status: response.status, id: answer.id });
      } catch {
        results.push({ ms: performance.now() - started, status: 0, id: undefined });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return results;
}
