import { describe, expect, it } from 'vitest';
import { type AnyActorRef, createActor, fromCallback } from 'xstate';
import { type AgentExecutor, agentActorLogic } from '../../src/actors/agent-actor.js';
import type { WorkOutcome } from '../../src/machines/lifecycle.js';

/** An actor that records what it is sent, standing for a task run. */
function recorder() {
  const received: { type: string; attempt?: number; outcome?: WorkOutcome }[] = [];
  const ref = createActor(fromCallback(({ receive }) => receive((e) => received.push(e as never))));
  ref.start();
  return { ref: ref as AnyActorRef, received };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the agent actor', () => {
  it('runs each WORK request on its executor and answers WORK.DONE to the requesting run', async () => {
    const executor: AgentExecutor = {
      execute: async (work) => ({ ok: true, output: `did ${work.nodeId}`, finishedAt: 1 }),
    };
    const agent = createActor(agentActorLogic, { input: { executor } });
    agent.start();
    const run = recorder();
    agent.send({ type: 'WORK', nodeId: 'a', attempt: 2, replyTo: run.ref });
    await settle();
    expect(run.received).toEqual([
      { type: 'WORK.DONE', attempt: 2, outcome: { ok: true, output: 'did a', finishedAt: 1 } },
    ]);
  });

  it('fails the attempt, rather than leave the run waiting, when its executor rejects without an abort', async () => {
    const executor: AgentExecutor = { execute: () => Promise.reject(new Error('executor fault')) };
    const agent = createActor(agentActorLogic, { input: { executor } });
    agent.start();
    const run = recorder();
    agent.send({ type: 'WORK', nodeId: 'a', attempt: 1, replyTo: run.ref });
    await settle();
    expect(run.received).toMatchObject([
      {
        type: 'WORK.DONE',
        attempt: 1,
        outcome: { ok: false, error: { message: 'executor fault', retryable: true } },
      },
    ]);
  });

  it('aborts the work in flight when stopped, and answers nothing', async () => {
    let seen: AbortSignal | undefined;
    const executor: AgentExecutor = {
      execute: (_work, signal) => {
        seen = signal;
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
    };
    const agent = createActor(agentActorLogic, { input: { executor } });
    agent.start();
    const run = recorder();
    agent.send({ type: 'WORK', nodeId: 'a', attempt: 1, replyTo: run.ref });
    agent.stop();
    await settle();
    expect(seen?.aborted).toBe(true);
    expect(run.received).toEqual([]);
  });
});
