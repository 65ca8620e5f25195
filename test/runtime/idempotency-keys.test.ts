import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { localExecutor } from '../../src/actors/hold-conversation.js';
import {
  Agent,
  Crew,
  createFlow,
  defineTool,
  type Llm,
  MemoryStore,
  type ModelRequest,
  or,
  Task,
  type Tool,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';

/** What a task line asks (`Task: <name> ...` → `<name>`). */
const taskOf = (request: ModelRequest) => (/Task: (\S+)/.exec(request.prompt) ?? [])[1] ?? '';

/** A `charge` tool that records the key of each call it gets, with the task line's argument. */
function chargeTool(keys: [string, string | undefined][]): Tool {
  return defineTool({
    name: 'charge',
    description: 'Charge an order',
    input: z.object({ order: z.string() }),
    execute: ({ order }, context) => {
      keys.push([order, context.idempotencyKey]);
      return `charged ${order}`;
    },
  }) as Tool;
}

/**
 * A model that calls `charge` twice in its first turn (orders `<task>-a` and `<task>-b`), then answers;
 * the first attempt of task `failFirst` fails after the calls, so that its task run tries again.
 */
function chargingModel(failFirst?: string): Llm {
  const failed = new Set<string>();
  return createScriptedModel((request) => {
    const task = taskOf(request);
    const results = request.messages.filter((m) => m.role === 'tool');
    if (results.length === 0) {
      const toolCalls = ['a', 'b'].map((o) => ({ id: o, name: 'charge', args: { order: `${task}-${o}` } }));
      return { text: '', toolCalls };
    }
    if (task === failFirst && !failed.has(task)) {
      failed.add(task);
      return new Error('the gateway hung up');
    }
    return `done ${task}`;
  });
}

function chargingCrew(keys: [string, string | undefined][], failFirst?: string, executor = false) {
  const charge = chargeTool(keys);
  const clerk = new Agent({ role: 'Clerk', llm: chargingModel(failFirst), tools: [charge], retryDelayMs: 0 });
  const tasks = ['t1', 't2'].map((name) => new Task({ name, description: name, agent: clerk }));
  return new Crew({
    name: 'charges',
    tasks,
    ...(executor ? { executor: localExecutor({ agents: [clerk], tools: [charge] }) } : {}),
  });
}

describe('idempotency keys of crew tool calls', () => {
  it('give a tool call the same key on every attempt of its task run, and any other call another', async () => {
    const keys: [string, string | undefined][] = [];
    const out = await chargingCrew(keys, 't1').kickoff({ executionId: 'run-1' });
    expect(out.status).toBe('completed');
    expect(out.nodes.find((n) => n.nodeId === 't1')?.attempts).toBe(2);
    expect(keys.map(([order]) => order)).toEqual(['t1-a', 't1-b', 't1-a', 't1-b', 't2-a', 't2-b']);
    const [a1, b1, a2, b2, c, d] = keys.map(([, key]) => key);
    // Across attempts: the same key for the same call.
    expect(a1).toEqual(expect.any(String));
    expect([a2, b2]).toEqual([a1, b1]);
    // Within a task run, and across task runs: every call its own.
    expect(new Set([a1, b1, c, d]).size).toBe(4);
    // Another run: other keys.
    const again: [string, string | undefined][] = [];
    await chargingCrew(again).kickoff({ executionId: 'run-2' });
    const otherRun = again.map(([, key]) => key);
    expect(otherRun.filter((key) => [a1, b1, c, d].includes(key))).toEqual([]);
    // The same run id gives the same keys: they derive from what the run keeps.
    const same: [string, string | undefined][] = [];
    await chargingCrew(same).kickoff({ executionId: 'run-1' });
    expect(same.map(([, key]) => key)).toEqual([a1, b1, c, d]);
  });

  it('give each iteration of a loop its own keys', async () => {
    const keys: [string, string | undefined][] = [];
    const clerk = new Agent({ role: 'Clerk', llm: chargingModel(), tools: [chargeTool(keys)] });
    const crew = new Crew({
      tasks: [new Task({ name: 'bill', description: 'bill', agent: clerk })],
      process: 'loop',
      loop: { condition: 'billed twice', judge: createScriptedModel(['NO', 'YES']), maxIterations: 2 },
    });
    await crew.kickoff({ executionId: 'loop-1' });
    expect(keys).toHaveLength(4);
    expect(new Set(keys.map(([, key]) => key)).size).toBe(4);
  });

  it('key a coworker’s calls under the delegating call, apart from the task agent’s own', async () => {
    const keys: [string, string | undefined][] = [];
    const charge = chargeTool(keys);
    const leadModel = createScriptedModel([
      { text: '', toolCalls: [{ id: 'c1', name: 'charge', args: { order: 'lead' } }] },
      {
        text: '',
        toolCalls: [
          { id: 'c2', name: 'delegate_work', args: { coworker: 'Clerk', task: 'charge', context: '' } },
        ],
      },
      'done',
    ]);
    const clerkModel = createScriptedModel([
      { text: '', toolCalls: [{ id: 'c1', name: 'charge', args: { order: 'clerk' } }] },
      'charged',
    ]);
    const lead = new Agent({ role: 'Lead', llm: leadModel, tools: [charge], allowDelegation: true });
    const clerk = new Agent({ role: 'Clerk', llm: clerkModel, tools: [charge] });
    const task = new Task({ name: 'bill', description: 'bill', agent: lead });
    await new Crew({ agents: [lead, clerk], tasks: [task] }).kickoff({ executionId: 'team-1' });
    expect(keys.map(([order]) => order)).toEqual(['lead', 'clerk']);
    const [own, coworkers] = keys.map(([, key]) => key);
    expect(own).toEqual(expect.any(String));
    expect(coworkers).toEqual(expect.any(String));
    expect(coworkers).not.toBe(own);
  });

  it('key the calls of a conversation held by an executor as in the run’s own process', async () => {
    const here: [string, string | undefined][] = [];
    await chargingCrew(here).kickoff({ executionId: 'run-x' });
    const there: [string, string | undefined][] = [];
    await chargingCrew(there, undefined, true).kickoff({ executionId: 'run-x' });
    expect(here.map(([, key]) => key).every((key) => typeof key === 'string')).toBe(true);
    expect(there).toEqual(here);
  });
});

describe('idempotency keys of flow step runs', () => {
  it('give every attempt of a step run one key, and every other step run another', async () => {
    const seen: [string, string][] = [];
    let fails = 1;
    const flow = createFlow({ name: 'billing', initialState: { rounds: 0 } })
      .start(
        'charge',
        ({ idempotencyKey }) => {
          seen.push(['charge', idempotencyKey]);
          if (fails > 0) {
            fails -= 1;
            throw new Error('the gateway hung up');
          }
          return 'charged';
        },
        { retries: 1, retryDelayMs: 0 },
      )
      .listen(
        'work',
        or('charge', 'again'),
        ({ idempotencyKey, state }) => {
          seen.push(['work', idempotencyKey]);
          state.rounds += 1;
          return state.rounds;
        },
        { maxRuns: 2 },
      )
      .router('check', 'work', ({ state }) => (state.rounds < 2 ? 'again' : 'done'), {
        routes: ['again', 'done'],
      });
    const out = await flow.kickoff({ inputs: { id: 'bill-1' } });
    expect(out.status).toBe('completed');
    expect(seen.map(([step]) => step)).toEqual(['charge', 'charge', 'work', 'work']);
    const [charge1, charge2, work1, work2] = seen.map(([, key]) => key);
    expect(charge1).toEqual(expect.any(String));
    expect(charge2).toBe(charge1);
    expect(new Set([charge1, work1, work2]).size).toBe(3);
    fails = 0;
    seen.length = 0;
    await flow.kickoff({ inputs: { id: 'bill-2' } });
    expect(seen.filter(([, key]) => [charge1, work1, work2].includes(key))).toEqual([]);
  });

  it('give a failed step run the key it had when resume runs it again', async () => {
    const keys: string[] = [];
    let down = true;
    const flow = createFlow({ name: 'refund', initialState: {}, store: new MemoryStore() }).start(
      'refund',
      ({ idempotencyKey }) => {
        keys.push(idempotencyKey);
        if (down) throw new Error('the gateway is down');
        return 'refunded';
      },
    );
    expect((await flow.kickoff({ inputs: { id: 'r-1' } })).status).toBe('failed');
    down = false;
    expect((await flow.resume('r-1')).status).toBe('completed');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });
});
