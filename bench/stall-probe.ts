/**
 * Watches the host's event loop: a `setImmediate` chain that records the longest gap between two of
 * its turns, i.e. the longest time the loop was held by something else. `stop()` returns it in ms.
 */
export function watchStalls(): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  let running = true;
  const probe = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(probe);
  };
  setImmediate(probe);
  return {
    stop() {
      running = false;
      probe();
      return longest;
    },
  };
}
