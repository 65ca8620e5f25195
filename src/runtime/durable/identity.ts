import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { threadId } from 'node:worker_threads';
import type { RunLease } from '../../stores/store.js';

/** Who this process is, as a lease records its owner. */
export interface OwnerIdentity {
  /** `<hostname>:<pid>`, and `/<thread>` off the main thread: what people read. */
  owner: string;
  /** The host as a pid can be checked on: hostname, boot and pid namespace (where Linux tells them). */
  host: string;
  pid: number;
  thread: number;
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

let identity: OwnerIdentity | undefined;

/** This process (and thread) as a lease's owner. */
export function ownerIdentity(): OwnerIdentity {
  if (identity === undefined) {
    const name = `${hostname()}:${process.pid}${threadId === 0 ? '' : `/${threadId}`}`;
    identity = { owner: name, host: hostIdentity(), pid: process.pid, thread: threadId };
  }
  return identity;
}

/** The tokens of the leases this thread's runs hold right now. */
const heldTokens = new Set<string>();

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

/**
 * Whether `lease` still has a live owner at `now`. What this host can check, it checks: a lease of
 * this thread is live while one of its runs holds it; one of a process on this host that is gone is
 * free at once. Any other lease is live until it expires.
 */
export function leaseIsLive(lease: RunLease | null, now: number): boolean {
  if (lease === null) return false;
  const me = ownerIdentity();
  if (lease.host === me.host) {
    if (lease.pid === me.pid && lease.thread === me.thread) return heldTokens.has(lease.token);
    if (lease.pid !== me.pid && lease.pid > 0 && !processAlive(lease.pid)) return false;
  }
  return lease.expiresAt > now;
}
