import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { Agent, Crew, defineTool, StatecrewError, Task, type Tool } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';

const searched: string[] = [];
const search = defineTool({
  name: 'search',
  description: 'Search the web',
  input: z.object({ query: z.string() }),
  execute: ({ query }) => {
    expectTypeOf(query).toEqualTypeOf<string>();
    searched.push(query);
    return `results for ${query}`;
  },
});
const add = defineTool({
  name: 'add',
  description: 'Add two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
});

const call = (name: string, args: unknown, id = name) => ({ id, name, args });

function oneTask(
  llm: ReturnType<typeof createScriptedModel>,
  tools: Tool[] = [search, add],
  maxIter?: number,
) {
  const agent = new Agent({
    role: 'R',
    llm,
    tools,
    maxRetries: 0,
    ...(maxIter === undefined ? {} : { maxIter }),
  });
  return new Crew({ tasks: [new Task({ name: 't', description: 'x', agent })] });
}

describe('typed tools in the tool loop', () => {
  it('runs granted tools, refuses others, and sends invalid arguments back for the model to correct', async () => {
    searched.length = 0;
    const llm = createScriptedModel([
      {
        text: '',
        toolCalls: [call('search', { query: 'a' }), call('add', { a: 1, b: 2 }), call('delete_all', {})],
      },
      { text: '', toolCalls: [call('search', { query: 5 }, 'bad')] },
      { text: '', toolCalls: [call('search', { query: 'fixed' }, 'good')] },
      'done',
    ]);
    const out = await oneTask(llm).kickoff();
    expect(out.raw).toBe('done');
    expect(searched).toEqual(['a', 'fixed']); // the invalid arguments never reached execute
    const records = out.nodes[0]?.toolCalls ?? [];
    expect(records.map((r) => [r.tool, r.result ?? r.error?.split(':')[0]])).toEqual([
      ['search', 'results for a'],
      ['add', '{"sum":3}'],
      ['delete_all', 'unknown tool "delete_all" (known'],
      ['search', 'invalid arguments'],
      ['search', 'results for fixed'],
    ]);
    const observations = llm.calls[2]?.messages.filter((m) => m.role === 'tool').map((m) => m.content) ?? [];
    expect(observations.at(-1)).toMatch(/^Error: invalid arguments/);
    expect(llm.calls[0]?.tools.map((t) => t.name)).toEqual(['search', 'add']);
    expect(llm.calls[0]?.tools[0]?.parameters).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string' } },
    });
  });

  it('grants a task’s tools to its runs only, in place of the agent’s', async () => {
    const local = defineTool({
      name: 'search',
      description: 'Search the intranet',
      input: z.object({ query: z.string() }),
      execute: ({ query }) => `intranet: ${query}`,
    });
    const llm = createScriptedModel((request) =>
      request.messages.some((m) => m.role === 'tool')
        ? String(request.messages.at(-1)?.content)
        : { text: '', toolCalls: [call('search', { query: 'q' }), call('add', { a: 1, b: 1 })] },
    );
    const agent = new Agent({ role: 'R', llm, tools: [search], maxRetries: 0 });
    const withTools = new Task({ name: 'own', description: 'x', agent, tools: [local, add] });
    const plain = new Task({ name: 'plain', description: 'y', agent });
    const out = await new Crew({ tasks: [withTools, plain] }).kickoff();
    const [first, second] = out.nodes.map((n) => n.toolCalls.map((r) => r.result ?? r.error?.split(' (')[0]));
    expect(first).toEqual(['intranet: q', '{"sum":2}']);
    expect(second).toEqual(['results for q', 'unknown tool "add"']);
    expect(llm.calls[0]?.tools.map((t) => t.description)).toEqual(['Search the intranet', 'Add two numbers']);
    expect(() => new Task({ description: 'z', tools: [{ name: 'x' } as never] })).toThrow(/option "tools"/);
  });

  it('runs a task with its own tools instead of the agent’s, and with the agent’s when its list is empty', async () => {
    const llm = createScriptedModel((request) =>
      request.messages.some((m) => m.role === 'tool')
        ? String(request.messages.at(-1)?.content)
        : { text: '', toolCalls: [call('search', { query: 'q' })] },
    );
    const agent = new Agent({ role: 'R', llm, tools: [search], maxRetries: 0 });
    const adding = new Task({ name: 'adding', description: 'x', agent, tools: [add] });
    const empty = new Task({ name: 'empty', description: 'y', agent, tools: [] });
    const out = await new Crew({ tasks: [adding, empty] }).kickoff();
    expect(llm.calls[0]?.tools.map((t) => t.name)).toEqual(['add']);
    expect(out.nodes[0]?.toolCalls[0]?.error).toMatch(/^unknown tool "search"/);
    expect(llm.calls[2]?.tools.map((t) => t.name)).toEqual(['search']);
    expect(out.nodes[1]?.toolCalls[0]?.result).toBe('results for q');
  });

  it('keeps the tools the crew grants beside a task’s own: delegation, and the results tool of memory', async () => {
    const llm = createScriptedModel(() => 'done');
    const lead = new Agent({ role: 'Lead', llm, tools: [search], allowDelegation: true, memory: true });
    const helper = new Agent({ role: 'Helper', llm });
    const task = new Task({ name: 'sum', description: 'x', agent: lead, tools: [add] });
    await new Crew({ agents: [lead, helper], tasks: [task] }).kickoff();
    expect(llm.calls[0]?.tools.map((t) => t.name)).toEqual([
      'add',
      'results',
      'delegate_work',
      'ask_question',
    ]);
  });

  it('stops a model that never stops calling tools: max_iterations, never an endless loop', async () => {
    const llm = createScriptedModel(() => ({ text: '', toolCalls: [call('search', { query: 'again' })] }));
    const out = await oneTask(llm, [search], 3).kickoff();
    expect(out.status).toBe('failed');
    expect(out.failures.t?.code).toBe('max_iterations');
    expect(llm.calls).toHaveLength(3);
  });

  it('fails the attempt when a tool throws a non-retryable StatecrewError; other throws are observations', async () => {
    const fragile = defineTool({
      name: 'fragile',
      description: 'May break',
      input: z.object({ hard: z.boolean() }),
      execute: ({ hard }) => {
        if (hard) throw new StatecrewError('output_invalid', 'the record is gone', { retryable: false });
        throw new Error('try later');
      },
    });
    const soft = createScriptedModel([
      { text: '', toolCalls: [call('fragile', { hard: false })] },
      'handled',
    ]);
    expect((await oneTask(soft, [fragile]).kickoff()).raw).toBe('handled');
    const hard = createScriptedModel([{ text: '', toolCalls: [call('fragile', { hard: true })] }, 'never']);
    const out = await oneTask(hard, [fragile]).kickoff();
    expect(out.failures.t).toMatchObject({ code: 'output_invalid', retryable: false });
  });

  it('refuses a definition it cannot use, naming the option (invalid_option)', () => {
    expect(() =>
      defineTool({ name: 'has space', description: '', input: z.object({}), execute: () => 1 }),
    ).toThrow(/option "name"/);
    expect(() =>
      defineTool({ name: 'x', description: 'd', input: {} as z.ZodObject, execute: () => 1 }),
    ).toThrow(/option "input"/);
  });
});
