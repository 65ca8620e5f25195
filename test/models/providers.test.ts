import { describe, expect, it } from 'vitest';
import { Agent, Crew, registerProvider, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';

describe('provider strings', () => {
  it('resolve through the registry when first needed, one model per string for every agent naming it', async () => {
    const made: string[] = [];
    const a = new Agent({ role: 'A', llm: 'scripted-one:model-x' }); // defined before the provider
    const b = new Agent({ role: 'B', llm: 'scripted-one:model-x' });
    registerProvider('scripted-one', (id) => {
      made.push(id);
      return createScriptedModel((request) => `${request.agent} via ${id}`);
    });
    const out = await new Crew({
      tasks: [
        new Task({ name: 'a', description: 'x', agent: a }),
        new Task({ name: 'b', description: 'y', agent: b }),
      ],
    }).kickoff();
    expect(out.tasksOutput.map((t) => t.raw)).toEqual(['A via model-x', 'B via model-x']);
    expect(made).toEqual(['model-x']);
  });

  it('refuse a kickoff naming an unregistered provider before any call, naming the package to install', () => {
    const agent = new Agent({ role: 'A', llm: 'anthropic:claude-test' });
    const crew = new Crew({ tasks: [new Task({ name: 't', description: 'x', agent })] });
    expect(() => crew.run()).toThrow(expect.objectContaining({ code: 'unknown_provider' }));
    expect(() => crew.run()).toThrow(/install @ai-sdk\/anthropic/);
  });

  it('must name a provider and a model, and a provider needs a name and a factory (invalid_option)', () => {
    expect(() => new Agent({ role: 'A', llm: 'gpt-4' })).toThrow(
      expect.objectContaining({ code: 'invalid_option' }),
    );
    expect(() => new Agent({ role: 'A', llm: 'openai:' })).toThrow(/provider string/);
    expect(() => registerProvider('bad name', () => createScriptedModel([]))).toThrow(/option "name"/);
    expect(() => registerProvider('ok', 'nope' as never)).toThrow(/option "factory"/);
  });
});
