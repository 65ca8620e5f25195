import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { threadId } from 'node:worker_threads';
import { processWide } from '../../process-wide.js';
import type { RunLease } from '../../stores/store.js';

/** Who this process is, as a lease records its owner. */
export interface OwnerIdentity {
  /** `<hostname>:<pid>`, and `/<thread>` off the main thread: what people read. */
  owner: string;
  /** The host as a pid can be checked on: hostname, boot and pid namespace (where Linux tells them). */
  host: string;
  pid: number;
  thread: number;
  /** When this process started, where its host tells it (Linux: clock ticks since boot). */
  started?: string | undefined;
}

/** A file's first line, or '' where it cannot be read (not Linux, no /proc). */
function readQuietly(read: () => string): string {
  try {
    return read().trim();
  } catch {
    return '';
  }
}

/**
 * The host a pid means something on. A hostname alone is not enough: two containers may share one
 * while their pids live in different namespaces, and a rebooted host reuses pids. Where Linux tells
 * them, the boot id and the pid namespace are part of it.
 */
function hostIdentity(): string {
  const boot = readQuietly(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'));
  const namespace = readQuietly(() => readlinkSync('/proc/self/ns/pid'));
  return [hostname(), boot, namespace].filter((part) => part !== '').join('/');
}

/**
 * When process `pid` started, as Linux tells it (field 22 of `/proc/<pid>/stat`, clock ticks since
 * boot), or undefined where it cannot be read. Read with the pid, it tells a reused pid apart.
 */
export function processStart(pid: number): string | undefined {
  const stat = readQuietly(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const started = fields[19];
  return started !== undefined && /^[0-9]+$/.test(started) ? started : undefined;
}

let identity: OwnerIdentity | undefined;

/** This process (and thread) as a lease's owner. */
export function ownerIdentity(): OwnerIdentity {
  if (identity === undefined) {
    const name = `${hostname()}:${process.pid}${threadId === 0 ? '' : `/${threadId}`}`;
    const started = processStart(process.pid);
    identity = { owner: name, host: hostIdentity(), pid: process.pid, thread: threadId };
    if (started !== undefined) identity.started = started;
  }
  return identity;
}

/**
 * Where the tokens of the leases this thread's runs hold right now live: on `globalThis`, so every
 * copy of the package loaded in one thread knows the others' leases as live (a run of a module that
 * imports its own statecrew is not taken for dead by the command's copy). A change to the shape
 * takes a new key.
 */
const heldTokens = processWide('heldLeaseTokens.v1', () => new Set<string>());

/** Notes that a run of this thread holds the lease with `token`. */
export function holdToken(token: string): void {
  heldTokens.add(token);
}

/** Notes that no run of this thread holds the lease with `token` any more. */
export function dropToken(token: string): void {
  heldTokens.delete(token);
}

/** Whether a process with `pid` runs on this host (`EPERM`: it does, under another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

/** Whether the process `lease` names on this host is the one that took it and still runs. */
function ownerRuns(lease: RunLease): boolean {
  if (!processAlive(lease.pid)) return false;
  // A pid reused by another process since: its start time differs from the one the lease recorded.
  const started = lease.started === undefined ? undefined : processStart(lease.pid);
  return started === undefined || started === lease.started;
}

/**
 * How a lease stands, as a claim acts on it: `live` (hands off), `expired` on the store's clock,
 * `ownerGone` (unexpired, but this host checked that its owner no longer holds it: a claim then
 * names its token in `replaces`), or `none`.
 */
export type LeaseStanding = 'none' | 'live' | 'expired' | 'ownerGone';

/**
 * How `lease` stands. What this host can check, it checks, whatever the clocks say: a lease of this
 * thread is live while one of its runs holds it, and free once none does; a lease of another process
 * on this host is live while that process runs (the same pid, started at the same time) and free
 * once it is gone. Any other lease (another host, another thread of this process) is live until it
 * expires on the store's clock — its `remainingMs` — or, from a store that does not tell it, at its
 * `expiresAt` on the reader's clock `now`.
 */
export function leaseStanding(lease: RunLease | null, now: number): LeaseStanding {
  if (lease === null) return 'none';
  const me = ownerIdentity();
  if (lease.host === me.host && lease.pid > 0) {
    if (lease.pid === me.pid && lease.thread === me.thread) {
      return heldTokens.has(lease.token) ? 'live' : 'ownerGone';
    }
    if (lease.pid !== me.pid) return ownerRuns(lease) ? 'live' : 'ownerGone';
  }
  return leaseRemainingMs(lease, now) > 0 ? 'live' : 'expired';
}

/** Whether `lease` still has a live owner (see {@link leaseStanding}). */
export function leaseIsLive(lease: RunLease | null, now: number): boolean {
  return leaseStanding(lease, now) === 'live';
}

/** How long `lease` has left, in ms: on the store's clock where the store told it, else `expiresAt - now`. */
export function leaseRemainingMs(lease: RunLease, now: number): number {
  return lease.remainingMs ?? lease.expiresAt - now;
}
