/**
 * CrewAI's ways of naming a model in `llm:` (LiteLLM's `provider/model`, or a bare model name), read
 * as statecrew's provider strings (`provider:model`, the names `registerProvider` takes).
 */

/** LiteLLM's provider prefixes whose `registerProvider` name (the AI SDK's) differs. */
const PROVIDER_ALIASES: Readonly<Record<string, string>> = {
  gemini: 'google',
  vertex_ai: 'google-vertex',
  bedrock: 'amazon-bedrock',
  azure_ai: 'azure',
  together_ai: 'togetherai',
  fireworks_ai: 'fireworks',
};

/** Bare model names CrewAI (through LiteLLM) sends to a provider it infers from the name. */
const BARE_MODEL_PROVIDERS: readonly (readonly [RegExp, string])[] = [
  [/^(gpt-|o\d(-|$)|chatgpt-|text-embedding-)/, 'openai'],
  [/^claude-/, 'anthropic'],
  [/^gemini-/, 'google'],
  [/^(mistral-|mixtral-|codestral-|open-mistral-)/, 'mistral'],
  [/^grok-/, 'xai'],
  [/^command-/, 'cohere'],
  [/^deepseek-/, 'deepseek'],
];

/** A statecrew provider string: `provider:model`. */
const PROVIDER_STRING = /^([a-z0-9][a-z0-9._-]*):(\S+)$/i;
/** CrewAI's (LiteLLM's) form: `provider/model`, the model itself may hold more slashes. */
const SLASH_FORM = /^([a-z0-9][a-z0-9._-]*)\/(\S+)$/i;

/** A model named by provider: the provider's registered name and the model id it is given. */
export interface ProviderSpec {
  /** The provider string, `provider:model`. */
  readonly spec: string;
  /** The provider's name as `registerProvider` takes it. */
  readonly provider: string;
}

/**
 * The provider string an `llm:` value means, in any of the forms CrewAI projects use:
 * `openai:gpt-4o-mini` (statecrew's), `openai/gpt-4o-mini` (CrewAI's), or a bare name whose provider
 * the name shows (`gpt-4o-mini`, `claude-3-5-sonnet-latest`, `gemini-2.0-flash`). `undefined` when
 * the value is none of these.
 */
export function providerSpecOf(llm: string): ProviderSpec | undefined {
  const colon = PROVIDER_STRING.exec(llm);
  if (colon !== null) return { spec: llm, provider: colon[1] as string };
  const slash = SLASH_FORM.exec(llm);
  if (slash !== null) {
    const prefix = (slash[1] as string).toLowerCase();
    const provider = PROVIDER_ALIASES[prefix] ?? prefix;
    return { spec: `${provider}:${slash[2]}`, provider };
  }
  const bare = BARE_MODEL_PROVIDERS.find(([pattern]) => pattern.test(llm));
  return bare === undefined ? undefined : { spec: `${bare[1]}:${llm}`, provider: bare[1] };
}
