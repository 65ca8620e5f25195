/**
 * What one benchmark case costs the process besides its time: the RSS and V8 heap sampled on an
 * interval (in one process RSS peaks are sticky, so what counts is the high water *above the RSS at
 * the case's start*, taken after a forced collection when the process runs with --expose-gc), and
 * the event loop's delay meanwhile, from `perf_hooks.monitorEventLoopDelay` sampling every 1 ms (its
 * max and p99; each delay is the time between two samples, so an idle loop shows about 1 ms). No
 * `setImmediate` probe (`stall-probe.ts`): it keeps the loop spinning, a core's worth of CPU that a
 * loaded two-core host cannot spare without slowing the runs it watches. The heap in use counts garbage
 * not yet collected: the row of `bench/map.ts` that watches nothing shows how much that is.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const MB = 1024 * 1024;

/** What a watched case cost, in MB and ms. */
export interface Watched {
  /** The RSS high water minus the RSS at the start, MB. */
  rssRiseMb: number;
  /** The highest V8 heap in use sampled, MB. */
  heapPeakMb: number;
  /** The highest V8 heap in use sampled minus the heap in use at the start, MB. */
  heapRiseMb: number;
  /** The event loop's longest delay (`monitorEventLoopDelay`, resolution 1 ms), ms. */
  loopMaxMs: number;
  /** Its 99th percentile, ms. */
  loopP99Ms: number;
}

/** Starts watching; `stop()` ends it and says what the time between cost. Samples every `everyMs`. */
export function watchCase(everyMs = 10): { stop(): Watched } {
  const start = process.memoryUsage();
  let rssPeak = start.rss;
  let heapPeak = start.heapUsed;
  const sample = () => {
    const now = process.memoryUsage();
    rssPeak = Math.max(rssPeak, now.rss);
    heapPeak = Math.max(heapPeak, now.heapUsed);
  };
  const timer = setInterval(sample, everyMs);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  return {
    stop() {
      delay.disable();
      clearInterval(timer);
      sample();
      return {
        rssRiseMb: (rssPeak - start.rss) / MB,
        heapPeakMb: heapPeak / MB,
        heapRiseMb: (heapPeak - start.heapUsed) / MB,
        loopMaxMs: delay.max / 1e6,
        loopP99Ms: delay.percentile(99) / 1e6,
      };
    },
  };
}

/**
 * The live heap while something runs: a forced collection every `everyMs` (needs --expose-gc), then
 * the heap in use, whose highest value is the most that was held at once. It slows what it watches:
 * for memory only, never with a timing. `stop()` returns that high water minus the heap in use at the
 * start (after a collection), in MB.
 */
export function watchLiveHeap(everyMs = 5000): { stop(): number } {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('watchLiveHeap: run node with --expose-gc');
  collect();
  const start = process.memoryUsage().heapUsed;
  let high = start;
  const timer = setInterval(() => {
    collect();
    high = Math.max(high, process.memoryUsage().heapUsed);
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return (high - start) / MB;
    },
  };
}
