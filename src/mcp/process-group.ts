/**
 * The process groups of stdio MCP servers: each server is started as the leader of a group of its own,
 * so that ending it ends whatever it started too. Groups are a POSIX thing: on Windows only the
 * server's own process is ended.
 */

/** Whether servers get a process group of their own here. */
export const OWN_GROUPS = process.platform !== 'win32';

/** How long a group's processes get after SIGTERM before SIGKILL. */
const GRACE_MS = 2000;
/** How often whether a group is gone is asked while it gets its grace. */
const POLL_MS = 25;

/** The groups started and not yet ended: ended with SIGTERM when this process exits. */
const live = new Set<number>();
let exitHooked = false;

/** Notes group `pgid` (its leader's pid) as started: if this process exits first, it is sent SIGTERM. */
export function trackGroup(pgid: number): void {
  live.add(pgid);
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const group of live) signalGroup(group, 'SIGTERM');
  });
}

/** Sends `signal` to every process of group `pgid`; false when none is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends every process left in group `pgid` (its leader has exited, or would not): SIGTERM, then SIGKILL
 * to those still there after a grace. Resolves once none is left, or once SIGKILL was sent.
 */
export async function endGroup(pgid: number): Promise<void> {
  if (signalGroup(pgid, 'SIGTERM')) {
    const until = Date.now() + GRACE_MS;
    while (Date.now() < until && signalGroup(pgid, 0)) await pause(POLL_MS);
    signalGroup(pgid, 'SIGKILL');
  }
  live.delete(pgid);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
