/**
 * Watches the host's event loop: a `setImmediate` chain that records the longest gap between two of
 * its turns, i.e. the longest time the loop was held by something else. `stop()` returns it in ms.
 * Given `phaseOf`, each gap is also counted against the phase it began in (`byPhase()`): where in a
 * run the longest stall was.
 */
export function watchStalls(phaseOf?: () => string): { stop(): number; byPhase(): Record<string, number> } {
  let last = performance.now();
  let longest = 0;
  let running = true;
  const phases: Record<string, number> = {};
  let phase = phaseOf?.();
  const probe = () => {
    const now = performance.now();
    const gap = now - last;
    longest = Math.max(longest, gap);
    if (phase !== undefined) phases[phase] = Math.max(phases[phase] ?? 0, gap);
    phase = phaseOf?.();
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
    byPhase: () => Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, Math.round(v)])),
  };
}
