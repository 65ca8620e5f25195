import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  Crew,
  defineTool,
  type RunClaim,
  type RunCommit,
  type Store,
  StoreUnavailableError,
  Task,
} from '../../src/index.js';
import { scriptedModel } from '../../src/testing.js';
import { openStore } from '../fixtures/durable/stores.js';
import { wrapStore } from '../store-helpers.js';
import { type ProvidedStore, storeKinds } from './store-specs.js';

const diskFull = () => new StoreUnavailableError('FailingStore', 'its disk', { code: 'SQLITE_FULL' });

/** A crew whose one task wires money: the wire waits for approval; `wired` lists what ran. */
function wireCrew(store: Store, wired: number[]) {
  const wire = defineTool({
    name: 'wire',
    description: 'Wire money',
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => {
      wired.push(amount);
      return `wired ${amount}`;
    },
  });
  const llm = scriptedModel((request) => {
    const seen = request.messages.find((m) => m.role === 'tool');
    if (seen === undefined) return { text: '', toolCalls: [{ id: 'w', name: 'wire', args: { amount: 70 } }] };
    return `done: ${seen.content}`;
  });
  const clerk = new Agent({ role: 'Clerk', llm, tools: [wire] });
  return new Crew({
    name: 'wires',
    store,
    tasks: [new Task({ name: 'pay', description: 'Pay', agent: clerk })],
  });
}

const CALL = 'pay.1.1.0';

for (const [kind, provide] of storeKinds()) {
  describe(`approvals when the store fails, on ${kind}`, () => {
    let provided: ProvidedStore;
    let store: Store;

    beforeEach(async () => {
      provided = provide();
      store = await openStore(provided.spec);
    });

    afterEach(async () => {
      await store.close();
      await provided.cleanup();
    });

    it('a pause that cannot be written stops the run (store_unavailable); resumed, the task pauses again and the tool never ran', async () => {
      const wired: number[] = [];
      const failing = wrapStore(store, {
        commit: (id: string, commit: RunCommit) =>
          commit.writes.some((w) => w.key === 'pay') ? Promise.reject(diskFull()) : store.commit(id, commit),
      });
      const error = await wireCrew(failing, wired)
        .kickoff({ executionId: 'w1' })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'store_unavailable' });
      expect(wired).toEqual([]);
      const again = await wireCrew(store, wired).resume('w1');
      expect(again.status).toBe('paused');
      expect(again.pending).toMatchObject([{ kind: 'approval', callId: CALL, tool: 'wire' }]);
      const out = await wireCrew(store, wired).resume('w1', { approvals: { [CALL]: { approve: true } } });
      expect(out.status).toBe('completed');
      expect(wired).toEqual([70]);
    });

    it('an approval whose claim cannot be written is refused (store_unavailable) with the run left paused; the same approval goes on once the store is back', async () => {
      const wired: number[] = [];
      const paused = await wireCrew(store, wired).kickoff({ executionId: 'w2' });
      expect(paused.status).toBe('paused');
      const failing = wrapStore(store, {
        claimRun: (_id: string, _version: number, _claim: RunClaim) => Promise.reject(diskFull()),
      });
      const error = await wireCrew(failing, wired)
        .resume('w2', { approvals: { [CALL]: { approve: true } } })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'store_unavailable' });
      expect(wired).toEqual([]);
      expect((await store.readRun('w2'))?.status).toBe('paused');
      const out = await wireCrew(store, wired).resume('w2', { approvals: { [CALL]: { approve: true } } });
      expect(out.status).toBe('completed');
      expect(out.raw).toBe('done: wired 70');
      expect(wired).toEqual([70]);
    });

    it('an approval whose answers cannot be kept is refused (store_unavailable) with the run left paused', async () => {
      const wired: number[] = [];
      await wireCrew(store, wired).kickoff({ executionId: 'w3' });
      const failing = wrapStore(store, {
        commit: (id: string, commit: RunCommit) =>
          commit.writes.some((w) => w.key === 'answers')
            ? Promise.reject(diskFull())
            : store.commit(id, commit),
      });
      const error = await wireCrew(failing, wired)
        .resume('w3', { approvals: { [CALL]: { approve: true } } })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'store_unavailable' });
      expect(wired).toEqual([]);
      expect(await store.readRun('w3')).toMatchObject({ status: 'paused', lease: null });
      const out = await wireCrew(store, wired).resume('w3', { approvals: { [CALL]: { approve: true } } });
      expect(out.status).toBe('completed');
      expect(wired).toEqual([70]);
    });
  });
}
