import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { converse } from '../../src/actors/conversation.js';
import {
  Agent,
  Crew,
  type Failure,
  type StatecrewEvent,
  Task,
  type Tool,
  type Usage,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';

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

  it('says what was missing when llm is left out', () => {
    let thrown: unknown;
    try {
      new Agent({ role: 'R' } as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'invalid_option', details: { option: 'llm' } });
    const message = (thrown as Error).message;
    expect(message).toBe(
      'Agent "R": option "llm" must be a policy function, a model with generate(), or a provider string like "openai:gpt-4.1-mini", got nothing (undefined) (invalid_option)',
    );
    expect(message).not.toContain('undefined undefined');
  });

  it('accepts retryDelayMs as an integer ≥ 0 on agents and tasks, and refuses anything else', () => {
    const llm = () => '';
    expect(new Agent({ role: 'R', llm, retryDelayMs: 0 }).retryDelayMs).toBe(0);
    expect(new Agent({ role: 'R', llm }).retryDelayMs).toBeUndefined();
    expect(new Task({ description: 'd', retryDelayMs: 250 }).retryDelayMs).toBe(250);
    for (const bad of [-1, 1.5, Number.NaN, '500']) {
      expect(() => new Agent({ role: 'R', llm, retryDelayMs: bad as number })).toThrow(
        /option "retryDelayMs" must be an integer ≥ 0/,
      );
      expect(() => new Task({ description: 'd', retryDelayMs: bad as number })).toThrow(
        expect.objectContaining({
          code: 'invalid_option',
          details: expect.objectContaining({ option: 'retryDelayMs' }),
        }),
      );
    }
  });

  it('reports a model call that throws as one call of no tokens, with the failure, then rethrows what it threw', async () => {
    const thrown = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const speaker = { role: 'R', llm: createScriptedModel([thrown]), tools: [], maxIter: 2 };
    const calls: [Usage, Failure | undefined][] = [];
    const hooks = {
      now: Date.now,
      onModelCall: (usage: Usage, _ms: number, f?: Failure) => calls.push([usage, f]),
    };
    await expect(
      converse(speaker, { text: 'p', system: '', task: 'p' }, '', new AbortController().signal, hooks),
    ).rejects.toBe(thrown);
    expect(calls).toEqual([
      [
        { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 1 },
        { message: 'socket hang up', code: 'ECONNRESET', retryable: true },
      ],
    ]);
  });

  it('does not report a model call that was aborted as a failed call', async () => {
    const speaker = {
      role: 'R',
      llm: createScriptedModel(() => () => new Promise<string>(() => {})),
      tools: [],
      maxIter: 2,
    };
    const controller = new AbortController();
    const reports: unknown[] = [];
    const talking = converse(speaker, { text: 'p', system: '', task: 'p' }, '', controller.signal, {
      now: Date.now,
      onModelCall: (...args) => reports.push(args),
    });
    controller.abort(new Error('stop'));
    await expect(talking).rejects.toThrow('stop');
    expect(reports).toEqual([]);
  });

  it('emits a model.call event with the error when its model throws once, then retries', async () => {
    const llm = createScriptedModel([Object.assign(new Error('rate limited'), { status: 429 }), 'fine']);
    const worker = new Agent({ role: 'Worker', llm, retryDelayMs: 0 });
    const run = new Crew({ tasks: [new Task({ name: 'work', description: 'work', agent: worker })] }).run();
    const calls: StatecrewEvent[] = [];
    run.events$.subscribe((e) => e.type === 'model.call' && calls.push(e));
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(calls).toMatchObject([
      { nodeId: 'work', attempt: 1, error: 'rate limited', usage: { calls: 1, totalTokens: 0 } },
      { nodeId: 'work', attempt: 2, usage: { calls: 1 } },
    ]);
    expect(calls[1]).not.toHaveProperty('error');
  });

  it('runs the tools its model calls, feeds the results back and records them', async () => {
    const lookup: Tool<{ q: string }> = {
      name: 'lookup',
      description: 'Looks a term up',
      parameters: z.object({ q: z.string() }),
      execute: ({ q }) => ({ term: q, meaning: 'a thing' }),
    };
    const llm = createScriptedModel([
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
    const llm = createScriptedModel(() => ({ text: '', toolCalls: [{ id: 'x', name: 'echo', args: {} }] }));
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
