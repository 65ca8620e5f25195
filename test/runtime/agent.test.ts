import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Crew, Task, type Tool } from '../../src/index.js';
import { scriptedModel } from '../../src/testing.js';

describe('Agent', () => {
  it('renders the prompt in the documented format, leaving out empty parts', () => {
    const llm = () => '';
    const full = new Agent({ role: 'Researcher', goal: 'find facts', backstory: 'meticulous', llm });
    expect(full.renderPrompt('Research AI', '3 bullets')).toBe(
      'You are Researcher. Your goal: find facts. Backstory: meticulous.\nTask: Research AI\nExpected output: 3 bullets',
    );
    expect(new Agent({ role: 'R', backstory: 'b', llm }).renderPrompt('T', '')).toBe(
      'You are R. Backstory: b.\nTask: T',
    );
    expect(new Agent({ role: 'R', goal: 'g', llm }).renderPrompt('T', 'E')).toBe(
      'You are R. Your goal: g.\nTask: T\nExpected output: E',
    );
  });

  it('executes a task by calling the policy with the prompt and the context', async () => {
    const seen: [string, string][] = [];
    const researcher = new Agent({
      role: 'Researcher',
      goal: 'find facts',
      llm: (prompt, context) => {
        seen.push([prompt, context]);
        return 'three facts';
      },
    });
    await expect(researcher.execute('Research AI', '3 bullets', 'context text')).resolves.toBe('three facts');
    expect(seen).toEqual([
      [
        'You are Researcher. Your goal: find facts.\nTask: Research AI\nExpected output: 3 bullets',
        'context text',
      ],
    ]);
  });

  it('refuses bad options with invalid_option, naming the option', () => {
    const llm = () => '';
    expect(() => new Agent({ role: '', llm })).toThrow(expect.objectContaining({ code: 'invalid_option' }));
    expect(() => new Agent({ role: 'R', llm: 'gpt' as never })).toThrow(/option "llm"/);
    expect(() => new Agent({ role: 'R', llm, maxRetries: -1 })).toThrow(
      /option "maxRetries" must be an integer ≥ 0/,
    );
    expect(() => new Agent({ role: 'R', llm, maxIter: 0 })).toThrow(/maxIter/);
    expect(() => new Agent({ role: 'R', llm, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it('runs the tools its model calls, feeds the results back and records them', async () => {
    const lookup: Tool<{ q: string }> = {
      name: 'lookup',
      description: 'Looks a term up',
      parameters: z.object({ q: z.string() }),
      execute: ({ q }) => ({ term: q, meaning: 'a thing' }),
    };
    const llm = scriptedModel([
      {
        text: '',
        toolCalls: [
          { id: '1', name: 'lookup', args: { q: 'XState' } },
          { id: '2', name: 'missing', args: {} },
        ],
      },
      { text: '', toolCalls: [{ id: '3', name: 'lookup', args: { q: 7 } }] },
      'XState is a thing',
    ]);
    const researcher = new Agent({ role: 'Researcher', llm, tools: [lookup as Tool] });
    const crew = new Crew({
      tasks: [new Task({ name: 'define', description: 'Define XState', agent: researcher })],
    });
    const run = crew.run();
    const toolEvents: unknown[] = [];
    run.events$.subscribe((e) => e.type === 'tool.call' && toolEvents.push(e.call));
    const out = await run.result;
    expect(out.raw).toBe('XState is a thing');
    expect(llm.calls[0]?.tools).toEqual([
      {
        name: 'lookup',
        description: 'Looks a term up',
        parameters: expect.objectContaining({ type: 'object', properties: { q: { type: 'string' } } }),
      },
    ]);
    const secondMessages = llm.calls[1]?.messages ?? [];
    expect(secondMessages.slice(1)).toEqual([
      { role: 'assistant', content: '', toolCalls: expect.any(Array) },
      { role: 'tool', toolCallId: '1', name: 'lookup', content: '{"term":"XState","meaning":"a thing"}' },
      {
        role: 'tool',
        toolCallId: '2',
        name: 'missing',
        content: 'Error: unknown tool "missing" (known: lookup)',
      },
    ]);
    expect(llm.calls[2]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringMatching(/^Error: invalid arguments/),
    });
    expect(out.nodes[0]?.toolCalls).toEqual(toolEvents);
    expect(out.nodes[0]?.toolCalls.map((c) => [c.tool, c.error === undefined])).toEqual([
      ['lookup', true],
      ['missing', false],
      ['lookup', false],
    ]);
    expect(out.nodes[0]?.usage.calls).toBe(3);
  });

  it('fails an attempt with max_iterations when the model keeps calling tools', async () => {
    const echo: Tool = { name: 'echo', description: 'echo', execute: () => 'again' };
    const llm = scriptedModel(() => ({ text: '', toolCalls: [{ id: 'x', name: 'echo', args: {} }] }));
    const looping = new Agent({ role: 'Looper', llm, tools: [echo], maxIter: 3, maxRetries: 0 });
    const out = await new Crew({
      tasks: [new Task({ name: 'spin', description: 'spin', agent: looping })],
    }).kickoff();
    expect(llm.calls).toHaveLength(3);
    expect(out.errors.spin).toBe(
      'Agent "Looper" was still calling tools after 3 model calls (max_iterations)',
    );
  });
});
