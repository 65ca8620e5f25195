import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  Crew,
  type CrewOptions,
  createRunner,
  defineTool,
  ExecutionDocument,
  MemoryStore,
  type StatecrewEvent,
  Task,
  type ToolCall,
} from '../../src/index.js';
import { createScriptedModel, type ScriptedModel } from '../../src/testing.js';
import { taskLine } from '../helpers.js';

/** A refund tool that records what it refunded; amounts over `over` wait for approval. */
function refundTool(done: number[], over = 0) {
  return defineTool({
    name: 'refund',
    description: 'Refund an amount',
    input: z.object({ amount: z.number() }),
    needsApproval: ({ amount }) => amount > over,
    execute: ({ amount }) => {
      done.push(amount);
      return `refunded ${amount}`;
    },
  });
}

/**
 * A clerk's model: on a task `refund <a> <b> …` it first calls `refund` once per amount (in one turn),
 * then answers with what the tools said. Any other task it answers at once.
 */
function clerkModel(): ScriptedModel {
  return createScriptedModel((request) => {
    const task = taskLine(request.prompt).slice('Task: '.length);
    const results = request.messages.flatMap((m) => (m.role === 'tool' ? [m.content] : []));
    const amounts = task.startsWith('refund ') ? task.split(' ').slice(1).map(Number) : [];
    if (results.length === 0 && amounts.length > 0) {
      const toolCalls: ToolCall[] = amounts.map((amount, i) => ({
        id: `t${i}`,
        name: 'refund',
        args: { amount },
      }));
      return { text: '', toolCalls };
    }
    return `${task}: ${results.join(' | ') || 'nothing to do'}`;
  });
}

function refundCrew(
  store: MemoryStore | undefined,
  llm: ScriptedModel,
  done: number[],
  options: Partial<CrewOptions> = {},
) {
  const clerk = new Agent({ role: 'Clerk', llm, tools: [refundTool(done, 100)] });
  const refund = new Task({ name: 'refund', description: 'refund 500', agent: clerk });
  const report = new Task({ name: 'report', description: 'report', agent: clerk });
  return new Crew({ name: 'refunds', tasks: [refund, report], store, ...options });
}

describe('tool calls that wait for approval', () => {
  it('pauses the run before the call: pending, paused node, stored paused with its lease released', async () => {
    const store = new MemoryStore();
    const done: number[] = [];
    const run = refundCrew(store, clerkModel(), done).run({ executionId: 'r1' });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    const out = await run.result;
    expect(done).toEqual([]);
    expect(out.status).toBe('paused');
    expect(out.pending).toEqual([
      {
        kind: 'approval',
        nodeId: 'refund',
        tool: 'refund',
        args: { amount: 500 },
        callId: 'refund.1.1.0',
        agent: 'Clerk',
      },
    ]);
    expect(out.errors).toEqual({});
    expect(out.failures).toEqual({});
    expect(out.nodes.map((n) => [n.nodeId, n.status])).toEqual([['refund', 'paused']]);
    expect(out.metadata.blocked).toEqual(['report']);
    expect(out.summary).toBe('0 completed, 0 failed, 1 blocked, 1 paused');
    const types = events.map((e) => e.type);
    expect(types.indexOf('crew.paused')).toBeLessThan(types.indexOf('run.completed'));
    expect(events.find((e) => e.type === 'run.completed')).toMatchObject({ status: 'paused' });
    const head = await store.readRun('r1');
    expect(head).toMatchObject({ status: 'paused', lease: null });
    const doc = await ExecutionDocument.fromStore(store, 'r1');
    expect(doc?.status).toBe('paused');
    expect(doc?.results.map((r) => r.status)).toEqual(['paused']);
  });

  it('approved: runs the tool, the model reads its result, the run completes (earlier usage counted once)', async () => {
    const store = new MemoryStore();
    const done: number[] = [];
    const first = await refundCrew(store, clerkModel(), done).kickoff({ executionId: 'r2' });
    const llm = clerkModel();
    const out = await refundCrew(store, llm, done).resume('r2', {
      approvals: { 'refund.1.1.0': { approve: true } },
    });
    expect(done).toEqual([500]);
    expect(out.status).toBe('completed');
    expect(out.pending).toBeUndefined();
    expect(out.tasksOutput.map((t) => t.raw)).toEqual(['refund 500: refunded 500', 'report: nothing to do']);
    // This process's model was asked once for the refund (after the tool ran) and once for the report.
    expect(llm.calls).toHaveLength(2);
    expect(llm.calls[0]?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'refunded 500' });
    const node = out.nodes.find((n) => n.nodeId === 'refund');
    expect(node).toMatchObject({ status: 'completed', attempts: 1 });
    expect(node?.usage.calls).toBe(2);
    expect(out.usage.calls).toBe((first.usage.calls as number) + 2);
    expect(node?.toolCalls).toEqual([{ tool: 'refund', args: { amount: 500 }, result: 'refunded 500' }]);
    expect(await store.readRun('r2')).toMatchObject({ status: 'completed', lease: null });
  });

  it("refused: the model's next turn reads the refusal with the feedback, and the tool never runs", async () => {
    const store = new MemoryStore();
    const done: number[] = [];
    await refundCrew(store, clerkModel(), done).kickoff({ executionId: 'r3' });
    const llm = clerkModel();
    const out = await refundCrew(store, llm, done).resume('r3', {
      approvals: { 'refund.1.1.0': { approve: false, feedback: 'over the limit' } },
    });
    expect(done).toEqual([]);
    expect(out.status).toBe('completed');
    const seen = llm.calls[0]?.messages.at(-1);
    expect(seen).toMatchObject({
      role: 'tool',
      content: 'Error: approval_refused: a human refused this call: over the limit',
    });
    expect(out.nodes[0]?.toolCalls[0]).toMatchObject({ tool: 'refund', code: 'approval_refused' });
  });

  it('needsApproval as a function decides per call; later calls of the turn keep their ids', async () => {
    const store = new MemoryStore();
    const done: number[] = [];
    const make = (llm: ScriptedModel) => {
      const clerk = new Agent({ role: 'Clerk', llm, tools: [refundTool(done, 100)] });
      return new Crew({
        tasks: [new Task({ name: 'r', description: 'refund 5 200 300', agent: clerk })],
        store,
      });
    };
    const out1 = await make(clerkModel()).kickoff({ executionId: 'r4' });
    expect(done).toEqual([5]); // 5 needs no approval: it ran before the turn's next call paused
    expect(out1.pending?.map((p) => (p.kind === 'approval' ? [p.callId, p.args] : []))).toEqual([
      ['r.1.1.1', { amount: 200 }],
    ]);
    const out2 = await make(clerkModel()).resume('r4', { approvals: { 'r.1.1.1': { approve: true } } });
    expect(done).toEqual([5, 200]);
    expect(out2.status).toBe('paused');
    // The third call of the turn, not a second `r.1.1.1`.
    expect(out2.pending?.map((p) => (p.kind === 'approval' ? p.callId : ''))).toEqual(['r.1.1.2']);
    const out3 = await make(clerkModel()).resume('r4', { approvals: { 'r.1.1.2': { approve: true } } });
    expect(done).toEqual([5, 200, 300]);
    expect(out3.status).toBe('completed');
    expect(out3.tasksOutput[0]?.raw).toBe('refund 5 200 300: refunded 5 | refunded 200 | refunded 300');
    expect(out3.nodes[0]?.usage.calls).toBe(2);
  });

  it('refuses a kickoff that could pause without a store (store_required), before any call', async () => {
    const llm = clerkModel();
    await expect(refundCrew(undefined, llm, []).kickoff()).rejects.toMatchObject({ code: 'store_required' });
    // A tool of one of the crew's agents counts too, though no task names that agent.
    const other = new Agent({ role: 'Other', llm, tools: [refundTool([], 0)] });
    const plain = new Agent({ role: 'Plain', llm });
    const crew = new Crew({ agents: [plain, other], tasks: [new Task({ description: 'x', agent: plain })] });
    await expect(crew.kickoff()).rejects.toMatchObject({ code: 'store_required' });
    expect(llm.calls).toHaveLength(0);
    const never = new Agent({ role: 'Never', llm, tools: [{ ...refundTool([]), needsApproval: false }] });
    const fine = new Crew({ tasks: [new Task({ description: 'x', agent: never })] });
    await expect(fine.kickoff()).resolves.toMatchObject({ status: 'completed' });
  });

  it('refuses answers that do not fit: none (answer_required), an unknown call (invalid_option), a run not paused (not_paused)', async () => {
    const store = new MemoryStore();
    const done: number[] = [];
    await refundCrew(store, clerkModel(), done).kickoff({ executionId: 'r5' });
    const crew = refundCrew(store, clerkModel(), done);
    await expect(crew.resume('r5')).rejects.toMatchObject({
      code: 'answer_required',
      details: { crew: 'refunds', id: 'r5', waiting: ['call refund.1.1.0 (Clerk → refund)'] },
    });
    await expect(crew.resume('r5', { approvals: { 'refund.9.9.9': { approve: true } } })).rejects.toThrow(
      /approvals names "refund\.9\.9\.9", which does not wait for approval; the run waits for call refund\.1\.1\.0/,
    );
    await expect(crew.resume('r5', { reviews: { refund: { approve: true } } })).rejects.toMatchObject({
      code: 'invalid_option',
    });
    await expect(
      crew.resume('r5', { approvals: { 'refund.1.1.0': { approve: 'yes' } as never } }),
    ).rejects.toMatchObject({ code: 'invalid_option', details: { option: 'approvals.refund.1.1.0' } });
    // Nothing was claimed or run by the refusals.
    expect(await store.readRun('r5')).toMatchObject({ status: 'paused', lease: null });
    expect(done).toEqual([]);
    await crew.resume('r5', { approvals: { 'refund.1.1.0': { approve: true } } });
    await expect(
      crew.resume('r5', { approvals: { 'refund.1.1.0': { approve: true } } }),
    ).rejects.toMatchObject({
      code: 'not_paused',
      details: { crew: 'refunds', status: 'completed' },
    });
    expect(done).toEqual([500]);
  });

  it('parallel: a task waits while the other completes; answering only some calls leaves the rest waiting', async () => {
    const store = new MemoryStore();
    const done: number[] = [];
    const make = (llm: ScriptedModel) => {
      const clerk = new Agent({ role: 'Clerk', llm, tools: [refundTool(done, 100)] });
      const tasks = ['refund 200', 'refund 300', 'report'].map(
        (description, i) => new Task({ name: `t${i + 1}`, description, agent: clerk }),
      );
      return new Crew({ tasks, process: 'parallel', store });
    };
    const out1 = await make(clerkModel()).kickoff({ executionId: 'p1' });
    expect(out1.status).toBe('paused');
    expect(out1.tasksOutput.map((t) => t.name)).toEqual(['t3']);
    expect(out1.pending?.map((p) => p.nodeId)).toEqual(['t1', 't2']);
    const llm = clerkModel();
    const out2 = await make(llm).resume('p1', { approvals: { 't2.1.1.0': { approve: true } } });
    expect(done).toEqual([300]);
    expect(out2.status).toBe('paused');
    expect(out2.pending).toEqual([
      {
        kind: 'approval',
        nodeId: 't1',
        tool: 'refund',
        args: { amount: 200 },
        callId: 't1.1.1.0',
        agent: 'Clerk',
      },
    ]);
    expect(out2.metadata.restored).toEqual(['t3']);
    // Only t2's conversation went on; t1 paused again without asking its model.
    expect(llm.calls).toHaveLength(1);
    const out3 = await make(clerkModel()).resume('p1', { approvals: { 't1.1.1.0': { approve: false } } });
    expect(out3.status).toBe('completed');
    expect(done).toEqual([300]);
    expect(out3.tasksOutput.find((t) => t.name === 't1')?.raw).toBe(
      'refund 200: Error: approval_refused: a human refused this call',
    );
  });

  it('hierarchical: the manager keeps its allocation of a waiting task, and synthesizes once it went on', async () => {
    const store = new MemoryStore();
    const done: number[] = [];
    const allocated: string[] = [];
    const make = (llm: ScriptedModel) => {
      const clerk = new Agent({ role: 'Clerk', llm, tools: [refundTool(done, 100)] });
      const other = new Agent({ role: 'Other', llm });
      const manager = {
        allocate: (description: string) => {
          allocated.push(description);
          return 'Clerk';
        },
        synthesize: (_goal: string, outputs: string[]) => outputs.join(' + '),
      };
      const tasks = ['refund 200', 'report'].map(
        (description) => new Task({ name: description.split(' ')[0], description }),
      );
      return new Crew({ tasks, agents: [clerk, other], process: 'hierarchical', manager, store });
    };
    const out1 = await make(clerkModel()).kickoff({ executionId: 'h1' });
    expect(out1.status).toBe('paused');
    expect(allocated).toEqual(['refund 200']);
    const out2 = await make(clerkModel()).resume('h1', { approvals: { 'refund.1.1.0': { approve: true } } });
    expect(out2.status).toBe('completed');
    expect(allocated).toEqual(['refund 200', 'report']);
    expect(out2.raw).toBe('refund 200: refunded 200 + report: nothing to do');
    expect(out2.delegations.map((d) => d.role)).toEqual(['Clerk', 'Clerk']);
  });

  it("loop: a task waiting in an iteration is answered by its iteration's call id", async () => {
    const store = new MemoryStore();
    const done: number[] = [];
    const make = (llm: ScriptedModel) => {
      const clerk = new Agent({ role: 'Clerk', llm, tools: [refundTool(done, 100)] });
      const tasks = [new Task({ name: 'pay', description: 'refund 300', agent: clerk })];
      return new Crew({
        tasks,
        process: 'loop',
        loop: { condition: 'paid', judge: () => 'YES', maxIterations: 2 },
        store,
      });
    };
    const out1 = await make(clerkModel()).kickoff({ executionId: 'l1' });
    expect(out1.pending?.map((p) => [p.nodeId, p.kind === 'approval' ? p.callId : ''])).toEqual([
      ['pay#1', 'pay#1.1.1.0'],
    ]);
    const out2 = await make(clerkModel()).resume('l1', { approvals: { 'pay#1.1.1.0': { approve: true } } });
    expect(out2.status).toBe('completed');
    expect(out2.metadata.iterations).toBe(1);
    expect(done).toEqual([300]);
  });

  it('a run whose process died after a call paused is recovered paused again, without a model call', async () => {
    const store = new MemoryStore();
    const done: number[] = [];
    await refundCrew(store, clerkModel(), done).kickoff({ executionId: 'd1' });
    // As if its process died after storing the paused task, before storing the run's end.
    const head = await store.readRun('d1');
    const lease = { owner: 'gone:1', token: 't', expiresAt: 0, host: 'elsewhere', pid: 1, thread: 0 };
    expect(await store.claimRun('d1', head?.version as number, { status: 'running', lease })).toBe(true);
    const llm = clerkModel();
    const runner = createRunner({ store, crews: [refundCrew(store, llm, done)] });
    const report = await runner.recover();
    await runner.close();
    expect(report.resumed).toEqual(['d1']);
    expect(llm.calls).toHaveLength(0);
    expect(await store.readRun('d1')).toMatchObject({ status: 'paused', lease: null });
    const out = await refundCrew(store, clerkModel(), done).resume('d1', {
      approvals: { 'refund.1.1.0': { approve: true } },
    });
    expect(out.status).toBe('completed');
    expect(done).toEqual([500]);
  });
});
