import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Crew, defineTool, MemoryStore, type RunHead, type Store, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { wrapStore } from '../store-helpers.js';

/** A one-task crew whose clerk calls `refund` (waiting for approval), then answers with what it said. */
function refundCrew(store: Store, done: string[]): Crew {
  const refund = defineTool({
    name: 'refund',
    description: 'Refund an order',
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => {
      done.push(`refund ${amount}`);
      return `refunded ${amount}`;
    },
  });
  const llm = createScriptedModel((request) => {
    const said = request.messages.flatMap((m) => (m.role === 'tool' ? [m.content] : []));
    if (said.length > 0) return `done: ${said.join(' | ')}`;
    return { text: '', toolCalls: [{ id: 'c1', name: 'refund', args: { amount: 120 } }] };
  });
  const clerk = new Agent({ role: 'Clerk', llm, tools: [refund] });
  const task = new Task({ name: 'refund', description: 'refund 120', agent: clerk });
  return new Crew({ name: 'refunds', tasks: [task], store });
}

/** `store`, but its first read of run `id` answers `stale`: a reader that read the head just before another answer moved the run on. */
function readingFirst(store: MemoryStore, id: string, stale: RunHead): Store {
  let first = true;
  return wrapStore(store, {
    async readRun(runId) {
      if (!first || runId !== id) return store.readRun(runId);
      first = false;
      return stale;
    },
  });
}

describe('two approvals of one paused crew run', () => {
  it('the later one, which read the run paused before the first moved it on, gets not_paused, not invalid_option', async () => {
    const store = new MemoryStore();
    const done: string[] = [];
    const paused = await refundCrew(store, done).kickoff({ executionId: 'race' });
    expect(paused.status).toBe('paused');
    const callId = paused.pending?.[0]?.kind === 'approval' ? paused.pending[0].callId : '';
    const stale = (await store.readRun('race')) as RunHead;
    const approvals = { [callId]: { approve: true } };
    const first = await refundCrew(store, done).resume('race', { approvals });
    expect(first.status).toBe('completed');
    const late = refundCrew(readingFirst(store, 'race', stale), done).resume('race', { approvals });
    await expect(late).rejects.toMatchObject({ code: 'not_paused' });
    expect(done).toEqual(['refund 120']);
    expect(await store.readRun('race')).toMatchObject({ status: 'completed', lease: null });
  });
});
