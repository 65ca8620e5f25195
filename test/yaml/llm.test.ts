import { describe, expect, it } from 'vitest';
import {
  ProviderModel,
  registerProvider,
  type StatecrewError,
  UnknownProviderError,
} from '../../src/index.js';
import { providerSpecOf } from '../../src/yaml/llm-spec.js';
import { loadCrew } from '../../src/yaml/load-crew.js';
import { echoModel } from '../helpers.js';

const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;
const TASKS = yaml('t:', '  description: Do it', '  agent: a');

/** The model `loadCrew` gives agent `a` whose `llm:` key is `llm`. */
function modelOf(llm: string, models?: Record<string, ReturnType<typeof echoModel>>) {
  const crew = loadCrew({ agents: yaml('a:', '  role: A', `  llm: ${llm}`), tasks: TASKS, models });
  return crew.agents[0]?.llm;
}

describe("llm: in CrewAI's forms", () => {
  it('reads provider/model, provider:model and bare names as provider strings', () => {
    expect(providerSpecOf('openai/gpt-4o-mini')).toEqual({ spec: 'openai:gpt-4o-mini', provider: 'openai' });
    expect(providerSpecOf('openai:gpt-4o-mini')).toEqual({ spec: 'openai:gpt-4o-mini', provider: 'openai' });
    expect(providerSpecOf('anthropic/claude-3-5-sonnet-20240620')?.spec).toBe(
      'anthropic:claude-3-5-sonnet-20240620',
    );
    expect(providerSpecOf('gemini/gemini-2.0-flash')?.spec).toBe('google:gemini-2.0-flash');
    expect(providerSpecOf('groq/llama-3.1-70b-versatile')?.spec).toBe('groq:llama-3.1-70b-versatile');
    expect(providerSpecOf('ollama/llama3.1')?.spec).toBe('ollama:llama3.1');
    expect(providerSpecOf('openrouter/meta-llama/llama-3-70b')?.spec).toBe(
      'openrouter:meta-llama/llama-3-70b',
    );
    expect(providerSpecOf('gpt-4o-mini')?.spec).toBe('openai:gpt-4o-mini');
    expect(providerSpecOf('o3-mini')?.spec).toBe('openai:o3-mini');
    expect(providerSpecOf('claude-3-7-sonnet-latest')?.spec).toBe('anthropic:claude-3-7-sonnet-latest');
    expect(providerSpecOf('gemini-2.0-flash')?.spec).toBe('google:gemini-2.0-flash');
    expect(providerSpecOf('my-own-model')).toBeUndefined();
    expect(providerSpecOf('two words')).toBeUndefined();
  });

  it('gives an agent the registered provider model its CrewAI llm names', async () => {
    const openai = echoModel();
    const google = echoModel();
    registerProvider('openai', () => openai);
    registerProvider('google', () => google);
    for (const [llm, spec] of [
      ['openai/gpt-4o-mini', 'openai:gpt-4o-mini'],
      ['gpt-4o', 'openai:gpt-4o'],
      ['gemini-2.0-flash', 'google:gemini-2.0-flash'],
    ]) {
      const model = modelOf(llm as string);
      expect(model).toBeInstanceOf(ProviderModel);
      expect((model as ProviderModel).spec).toBe(spec);
    }
    const crew = loadCrew({ agents: yaml('a:', '  role: A', '  llm: gemini-2.0-flash'), tasks: TASKS });
    const out = await crew.kickoff();
    expect(out.raw).toBe('A: Do it');
    expect(google.calls).toHaveLength(1);
    expect(openai.calls).toHaveLength(0);
  });

  it('lets a models key win over the provider reading of the same name', () => {
    const mine = echoModel();
    expect(modelOf('openai/gpt-4o-mini', { 'openai/gpt-4o-mini': mine })).toBe(mine);
  });

  it('refuses an unregistered provider at load: unknown_provider with the file, the line and the package', () => {
    const agents = yaml(
      'a:',
      '  role: A',
      '  llm: echo',
      'b:',
      '  role: B',
      '  llm: anthropic/claude-3-5-haiku',
    );
    let error: unknown;
    try {
      loadCrew({ agents, tasks: TASKS, models: { echo: echoModel() } });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(UnknownProviderError);
    const e = error as StatecrewError;
    expect(e.code).toBe('unknown_provider');
    expect(e.details).toEqual({
      spec: 'anthropic:claude-3-5-haiku',
      provider: 'anthropic',
      package: '@ai-sdk/anthropic',
      file: 'agents.yaml',
      line: 6,
    });
    expect(e.message).toMatch(
      /^agents\.yaml line 6: Model "anthropic:claude-3-5-haiku" names provider "anthropic"/,
    );
    expect(e.message).toContain('install @ai-sdk/anthropic');
    expect(e.message).toContain("registerProvider('anthropic'");
    const local = yaml('a:', '  role: A', '  llm: ollama/llama3');
    expect(() => loadCrew({ agents: local, tasks: TASKS })).toThrow(
      /^agents\.yaml line 3: Model "ollama:llama3" names provider "ollama", which is not registered: install ollama-ai-provider-v2/,
    );
  });
});
