import { InvalidOptionError, UnknownProviderError } from '../errors.js';
import { processWide } from '../process-wide.js';
import type { Model, ModelRequest, ModelResponse } from '../types.js';

/** Makes the model a provider string names: `'openai:gpt-4.1-mini'` → `factory('gpt-4.1-mini')`. */
export type ProviderFactory = (modelId: string) => Model;

/** The provider registry: the factories by name, and one model per provider string. */
interface Providers {
  readonly factories: Map<string, ProviderFactory>;
  /** One model per provider string, shared by every agent that names it. */
  readonly models: Map<string, Model>;
}

/**
 * Where the registry lives: on `globalThis`, so every copy of the package loaded in one process
 * shares it (a `crew.ts` that imports another copy than the CLI runs registers for both). The key
 * names the registry's shape: a change to it takes a new key, and copies of different shapes then
 * keep a registry each.
 */
const { factories, models } = processWide<Providers>('providers.v1', () => ({
  factories: new Map(),
  models: new Map(),
}));

/** The package to install for a provider name, for the error that names it. */
const PACKAGES: Readonly<Record<string, string>> = {
  openai: '@ai-sdk/openai',
  anthropic: '@ai-sdk/anthropic',
  google: '@ai-sdk/google',
  mistral: '@ai-sdk/mistral',
  groq: '@ai-sdk/groq',
  xai: '@ai-sdk/xai',
  azure: '@ai-sdk/azure',
  'amazon-bedrock': '@ai-sdk/amazon-bedrock',
  'google-vertex': '@ai-sdk/google-vertex',
  cohere: '@ai-sdk/cohere',
  deepseek: '@ai-sdk/deepseek',
  togetherai: '@ai-sdk/togetherai',
  fireworks: '@ai-sdk/fireworks',
  perplexity: '@ai-sdk/perplexity',
  cerebras: '@ai-sdk/cerebras',
  ollama: 'ollama-ai-provider-v2',
  openrouter: '@openrouter/ai-sdk-provider',
  'openai-compatible': '@ai-sdk/openai-compatible',
};

/** Whether `registerProvider` has been given `name`. */
export function isProviderRegistered(name: string): boolean {
  return factories.has(name);
}

/** The AI SDK package that provides `name`, when it is a known one. */
export function providerPackage(name: string): string | undefined {
  return Object.hasOwn(PACKAGES, name) ? PACKAGES[name] : undefined;
}

/**
 * Registers what a provider name in an agent's `llm` string means. Register before a kickoff (a
 * crew whose agent names an unregistered provider is refused then, before any call).
 *
 * @example
 * import { createOpenAI } from '@ai-sdk/openai';
 * import { fromAiSdk } from 'statecrew/ai-sdk';
 * registerProvider('openai', (id) => fromAiSdk(createOpenAI({ apiKey }).chat(id)));
 * new Agent({ role: 'Researcher', llm: 'openai:gpt-4.1-mini' });
 */
export function registerProvider(name: string, factory: ProviderFactory): void {
  if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9._-]*$/i.test(name)) {
    throw new InvalidOptionError('registerProvider', 'name', 'a provider name like "openai"', name);
  }
  if (typeof factory !== 'function') {
    throw new InvalidOptionError('registerProvider', 'factory', 'a function (modelId) => Model', factory);
  }
  factories.set(name, factory);
  for (const spec of [...models.keys()]) if (spec.startsWith(`${name}:`)) models.delete(spec);
}

/**
 * An agent's model named by a provider string: it resolves through the registry when it is first
 * needed (so agents may be defined before providers are registered) and then calls that model.
 */
export class ProviderModel implements Model {
  readonly provider: string;
  readonly modelId: string;
  /** Its id for price tables: the provider string itself. */
  readonly id: string;

  constructor(
    /** The provider string, `<provider>:<model id>`. */
    readonly spec: string,
    where: string,
  ) {
    const colon = spec.indexOf(':');
    if (colon <= 0 || colon === spec.length - 1) {
      throw new InvalidOptionError(
        where,
        'llm',
        'a policy, a model, or a provider string like "openai:gpt-4.1-mini"',
        spec,
      );
    }
    this.provider = spec.slice(0, colon);
    this.modelId = spec.slice(colon + 1);
    this.id = spec;
  }

  /** The registered model; `unknown_provider` naming the package to install when none is. */
  resolve(): Model {
    let model = models.get(this.spec);
    if (model === undefined) {
      const factory = factories.get(this.provider);
      if (factory === undefined)
        throw new UnknownProviderError(this.spec, this.provider, PACKAGES[this.provider]);
      model = factory(this.modelId);
      models.set(this.spec, model);
    }
    return model;
  }

  generate(request: ModelRequest): Promise<ModelResponse> {
    try {
      return this.resolve().generate(request);
    } catch (error) {
      return Promise.reject(error);
    }
  }
}
