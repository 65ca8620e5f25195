import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  Crew,
  createFlow,
  defineTool,
  MemoryStore,
  type StatecrewEvent,
  type StepContext,
  type Store,
  Task,
} from '../../../src/index.js';
import { createScriptedModel, type ScriptedModel } from '../../../src/testing.js';
import { taskLine } from '../../helpers.js';

/** A clerk's model: on `refund <amount>` it calls `refund`, then answers with what the tool said. */
function clerkModel(): ScriptedModel {
  return createScriptedModel((request) => {
    const task = taskLine(request.prompt).slice('Task: '.length);
    const said = request.messages.flatMap((m) => (m.role === 'tool' ? [m.content] : []));
    if (said.length > 0) return `${task}: ${said.join(' | ')}`;
    const amount = Number(task.split(' ')[1]);
    return { text: '', toolCalls: [{ id: 'c1', name: 'refund', args: { amount } }] };
  });
}

/** A refund tool whose calls wait for approval; `refunded` lists the amounts it refunded. */
function refundTool(refunded: number[]) {
  return defineTool({
    name: 'refund',
    description: 'Refund an amount',
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => {
      refunded.push(amount);
      return `refunded ${amount}`;
    },
  });
}

/** A flow whose `pay` step kicks off a refund crew (its call waits for approval), then `notify`. */
function refundFlow(store: Store | undefined, llm: ScriptedModel, refunded: number[], steps: string[]) {
  const refund = refundTool(refunded);
  const clerk = new Agent({ role: 'Clerk', llm, tools: [refund] });
  const crew = new Crew({
    name: 'refunds',
    tasks: [new Task({ name: 'refund', description: 'refund {amount}', agent: clerk })],
  });
  return createFlow({ name: 'orders', initialState: { amount: 0 }, ...(store ? { store } : {}) })
    .start('receive', ({ state }) => {
      steps.push('receive');
      return state.amount;
    })
    .listen('pay', 'receive', async ({ state, kickoff }) => {
      steps.push('pay');
      return (await kickoff(crew, { inputs: { amount: state.amount } })).raw;
    })
    .listen('notify', 'pay', ({ payload }) => {
      steps.push('notify');
      return `told: ${String(payload)}`;
    });
}

describe('a crew pausing for approval inside a flow step', () => {
  it('pauses the flow on the step (pending shows the crew and its call), and flow.resume carries the approval down', async () => {
    const store = new MemoryStore();
    const refunded: number[] = [];
    const steps: string[] = [];
    const run = refundFlow(store, clerkModel(), refunded, steps).run({ inputs: { id: 'o1', amount: 70 } });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    const out = await run.result;
    expect(out.status).toBe('paused');
    expect(out.trail).toEqual(['receive']);
    expect(out.errors).toEqual({});
    expect(out.pending).toEqual({
      kind: 'crew',
      step: 'pay',
      nodeId: 'pay',
      crew: 'refunds',
      executionId: 'o1:pay:1',
      pending: [
        {
          kind: 'approval',
          nodeId: 'refund',
          tool: 'refund',
          args: { amount: 70 },
          callId: 'refund.1.1.0',
          agent: 'Clerk',
        },
      ],
      payload: 70,
    });
    expect(events.find((e) => e.type === 'flow.paused')).toMatchObject({
      waiting: ['pay'],
      waitingFor: [{ step: 'pay', nodeId: 'pay', kind: 'crew', executionId: 'o1:pay:1' }],
    });
    expect(events.find((e) => e.type === 'crew.paused')).toMatchObject({ step: 'pay' });
    // The crew's run is kept in the flow's store, paused, its lease released.
    expect(await store.readRun('o1:pay:1')).toMatchObject({ kind: 'crew', status: 'paused', lease: null });
    expect((await refundFlow(store, clerkModel(), [], []).getRun('o1'))?.status).toBe('paused');

    const llm = clerkModel();
    const flow = refundFlow(store, llm, refunded, steps);
    await expect(flow.resume('o1', { route: 'x' })).rejects.toMatchObject({ code: 'answer_required' });
    await expect(flow.resume('o1', { approvals: { 'refund.9.9.9': { approve: true } } })).rejects.toThrow(
      /approvals names "refund\.9\.9\.9", which no crew of a waiting step waits for; they wait for call refund\.1\.1\.0 of step "pay"/,
    );
    const done = await flow.resume('o1', { approvals: { 'refund.1.1.0': { approve: true } } });
    expect(done.status).toBe('completed');
    expect(done.trail).toEqual(['receive', 'pay', 'notify']);
    expect(done.output).toBe('told: refund 70: refunded 70');
    expect(refunded).toEqual([70]);
    // The step ran again; its crew went on from the stored run (one model call, after the tool).
    expect(steps).toEqual(['receive', 'pay', 'pay', 'notify']);
    expect(llm.calls).toHaveLength(1);
    expect(await store.readRun('o1:pay:1')).toMatchObject({ status: 'completed' });
    await expect(
      flow.resume('o1', { approvals: { 'refund.1.1.0': { approve: true } } }),
    ).rejects.toMatchObject({
      code: 'not_paused',
    });
  });

  it('a refusal reaches the crew’s model as its feedback', async () => {
    const store = new MemoryStore();
    const refunded: number[] = [];
    await refundFlow(store, clerkModel(), refunded, []).kickoff({ inputs: { id: 'o2', amount: 500 } });
    const done = await refundFlow(store, clerkModel(), refunded, []).resume('o2', {
      approvals: { 'refund.1.1.0': { approve: false, feedback: 'too much' } },
    });
    expect(done.output).toBe(
      'told: refund 500: Error: approval_refused: a human refused this call: too much',
    );
    expect(refunded).toEqual([]);
  });

  it('without a store anywhere, the crew’s kickoff fails the step with store_required', async () => {
    const out = await refundFlow(undefined, clerkModel(), [], []).kickoff({ inputs: { amount: 5 } });
    expect(out.status).toBe('failed');
    expect(out.failures.pay).toMatchObject({ code: 'store_required' });
  });

  it('two steps whose crews wait: answers name the step; the step not answered waits on without running', async () => {
    const store = new MemoryStore();
    const refunded: number[] = [];
    const ran: string[] = [];
    const make = () => {
      const refund = refundTool(refunded);
      const crewOf = () =>
        new Crew({
          name: 'refunds',
          tasks: [
            new Task({
              name: 'refund',
              description: 'refund {amount}',
              agent: new Agent({ role: 'Clerk', llm: clerkModel(), tools: [refund] }),
            }),
          ],
        });
      const step =
        (name: string, amount: number) =>
        async ({ kickoff }: StepContext<object>) => {
          ran.push(name);
          return (await kickoff(crewOf(), { inputs: { amount } })).raw;
        };
      return createFlow({ name: 'pair', initialState: {}, store })
        .start('a', step('a', 1))
        .start('b', step('b', 2));
    };
    const out1 = await make().kickoff({ inputs: { id: 'p' } });
    expect(out1.status).toBe('paused');
    expect(out1.waiting?.map((w) => (w.kind === 'crew' ? [w.step, w.executionId] : []))).toEqual([
      ['a', 'p:a:1'],
      ['b', 'p:b:1'],
    ]);
    const call = { 'refund.1.1.0': { approve: true as const } };
    await expect(make().resume('p', { step: 'c', approvals: call })).rejects.toMatchObject({
      code: 'answer_required',
    });
    const out2 = await make().resume('p', { step: 'b', approvals: call });
    expect(out2.status).toBe('paused');
    expect(out2.pending).toMatchObject({ kind: 'crew', step: 'a' });
    expect(refunded).toEqual([2]);
    expect(ran).toEqual(['a', 'b', 'b']);
    const out3 = await make().resume('p', { approvals: call });
    expect(out3.status).toBe('completed');
    expect(out3.outputs).toEqual({ a: 'refund 1: refunded 1', b: 'refund 2: refunded 2' });
    expect(refunded).toEqual([2, 1]);
  });
});
