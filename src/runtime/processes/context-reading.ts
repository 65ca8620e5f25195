import type { RunRecorder } from '../engine/recorder.js';

/** Context entries read in one operation: a task that reads 100,000 others reads them over many turns. */
export const CONTEXT_IDS_PER_SLICE = 2_048;

/** What reading one slice counts for in a turn's share of operations (about as long as 8 task starts). */
export const CONTEXT_SLICE_OPERATIONS = 8;

/** Where a long context's later slices are queued: the run's runner. */
export interface SliceScheduler {
  schedule(operation: () => void, operations?: number): void;
}

/**
 * Reads the context a task run gets from the tasks `ids` names (their outputs, a structured one as
 * JSON, joined with `separator` in the list's order) and hands it to `start`. A list of up to
 * {@link CONTEXT_IDS_PER_SLICE} entries is read at once; a longer one (a join over a 100,000-task
 * fan-out) a slice per queued operation, so its run never holds the host while it is read. The tasks
 * read have all completed: their outputs do not change between slices. If the run ends first, the
 * queue drops the rest and `start` is never called.
 */
export function readContext(
  recorder: RunRecorder,
  ids: readonly string[],
  queue: SliceScheduler,
  start: (context: string) => void,
  separator = '\n',
): void {
  if (ids.length <= CONTEXT_IDS_PER_SLICE) {
    start(textOf(recorder, ids, 0, ids.length, separator));
    return;
  }
  const slices: string[] = [];
  const readFrom = (from: number) => {
    const to = Math.min(from + CONTEXT_IDS_PER_SLICE, ids.length);
    slices.push(textOf(recorder, ids, from, to, separator));
    if (to < ids.length) queue.schedule(() => readFrom(to), CONTEXT_SLICE_OPERATIONS);
    else start(slices.join(separator));
  };
  readFrom(0);
}

function textOf(
  recorder: RunRecorder,
  ids: readonly string[],
  from: number,
  to: number,
  separator: string,
): string {
  // One dependency (the common fan-out) needs no list joined.
  if (to - from === 1) return recorder.contextOf(ids[from] as string) ?? '';
  const parts = new Array<string>(to - from);
  for (let i = from; i < to; i += 1) parts[i - from] = recorder.contextOf(ids[i] as string) ?? '';
  return parts.join(separator);
}
