import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFlow, MemoryStore, type RunLease } from '../../src/index.js';
import { leaseIsLive, ownerIdentity } from '../../src/runtime/durable/identity.js';
import { wrapStore } from '../store-helpers.js';

/** When process `pid` started, as Linux tells it; undefined elsewhere. */
function startOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

describe('a lease of a process on this host', () => {
  let other: ChildProcess;
  beforeAll(() => {
    other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' });
  });
  afterAll(() => {
    other.kill('SIGKILL');
  });

  const leaseOf = (pid: number, fields: Partial<RunLease> = {}): RunLease => ({
    owner: `here:${pid}`,
    token: 't',
    host: ownerIdentity().host,
    pid,
    thread: 0,
    // Expired an hour ago by every clock here: only the process decides.
    expiresAt: Date.now() - 3_600_000,
    ...fields,
  });

  it('is live while that process runs, whatever its expiry and the reader’s clock say', () => {
    const pid = other.pid as number;
    expect(leaseIsLive(leaseOf(pid), Date.now() + 20_000)).toBe(true);
    expect(leaseIsLive(leaseOf(pid, { remainingMs: -3_600_000 }), Date.now())).toBe(true);
    const started = startOf(pid);
    if (started !== undefined) {
      expect(leaseIsLive(leaseOf(pid, { started }), Date.now())).toBe(true);
      // The pid now belongs to a process that started at another time: the owner is gone.
      expect(leaseIsLive(leaseOf(pid, { started: `${Number(started) + 1}` }), Date.now())).toBe(false);
    }
  });

  it('of this process, that no run holds, is free at once: a resume takes the run, the store letting it replace the live lease', async () => {
    const memory = new MemoryStore();
    let failing = true;
    // The store fails the run's writes (and the release of its lease), then comes back.
    const store = wrapStore(memory, {
      commit: (id, commit) =>
        failing ? Promise.reject(new Error('disk unplugged')) : memory.commit(id, commit),
    });
    const ran: string[] = [];
    const flow = createFlow({ name: 'halted', initialState: {}, store, leaseMs: 60_000 }).start('one', () => {
      ran.push('one');
      return 'one';
    });
    await expect(flow.kickoff({ inputs: { id: 'h1' } })).rejects.toMatchObject({ code: 'store_unavailable' });
    const held = (await memory.readRun('h1'))?.lease;
    expect(held?.remainingMs).toBeGreaterThan(0);
    expect(held?.pid).toBe(process.pid);
    failing = false;
    const out = await flow.resume('h1');
    expect(out.status).toBe('completed');
    expect(ran).toContain('one');
    expect(await memory.readRun('h1')).toMatchObject({ status: 'completed', lease: null });
  });
});
