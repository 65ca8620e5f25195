/**
 * Any AI SDK language model as a statecrew {@link Model}: `statecrew/ai-sdk` (its own subpath, so
 * importing `statecrew` never loads the AI SDK).
 *
 * @example
 * import { createOpenAI } from '@ai-sdk/openai';
 * import { fromAiSdk } from 'statecrew/ai-sdk';
 * const llm = fromAiSdk(createOpenAI({ apiKey }).chat('gpt-4.1-mini'), { temperature: 0 });
 * const researcher = new Agent({ role: 'Researcher', llm });
 */
import {
  type ModelMessage as AiMessage,
  embedMany,
  generateText,
  jsonSchema,
  type LanguageModel,
  NoObjectGeneratedError,
  Output,
  streamText,
  type ToolSet,
  tool,
} from 'ai';
import type { EmbeddingModel, Model, ModelMessage, ModelRequest, ModelResponse, ToolSpec } from './types.js';

/** Options of {@link fromAiSdk}: what every call of the adapted model is made with. */
export interface AiSdkModelOptions {
  /**
   * The model's id for price tables. @default `<provider>:<model id>` from the AI SDK model (its
   * provider's first name part: `openai.chat` → `openai`), or the model string itself
   */
  id?: string | undefined;
  /** Calls a minute at most, shared by every agent that uses this model: calls wait their turn. */
  maxRpm?: number | undefined;
  /** The sampling temperature, for agents that set none. */
  temperature?: number | undefined;
  /** The most tokens an answer may have, for agents that set none. */
  maxOutputTokens?: number | undefined;
  /** Provider-specific options, passed through as the AI SDK takes them. */
  providerOptions?: Parameters<typeof generateText>[0]['providerOptions'];
}

/**
 * Adapts an AI SDK language model: the request's system message, conversation and tools go to
 * `generateText` (the tools without `execute`: statecrew runs them, checks their arguments and feeds
 * the results back); its text, tool calls, usage and finish reason come back. The AI SDK's own retries
 * are off (`maxRetries: 0`): statecrew's retry policy reads its errors (`isRetryable`, the status,
 * `retry-after`) and backs off on the run's clock.
 */
export function fromAiSdk(model: LanguageModel, options: AiSdkModelOptions = {}): Model {
  const settings = (request: ModelRequest) => ({
    model,
    ...(request.system === '' ? {} : { system: request.system }),
    messages: request.messages.map(toAiMessage),
    ...(request.tools.length === 0 ? {} : { tools: toAiTools(request.tools) }),
    abortSignal: request.signal,
    maxRetries: 0,
    // The agent's settings, else the model's.
    ...pick('temperature', request.temperature ?? options.temperature),
    ...pick('maxOutputTokens', request.maxOutputTokens ?? options.maxOutputTokens),
    ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
    // The provider's structured-output mode, when the task has a schema and no tool is in play.
    ...(request.schema === undefined || request.tools.length > 0
      ? {}
      : { output: Output.object({ schema: jsonSchema(request.schema) }) }),
  });
  return {
    id: options.id ?? idOf(model),
    ...(options.maxRpm === undefined ? {} : { maxRpm: options.maxRpm }),
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const { onDelta } = request;
      if (onDelta !== undefined) {
        // Streamed: each text delta to `onDelta` as it comes; the response once the stream ended.
        const result = streamText(settings(request));
        for await (const part of result.fullStream) {
          if (part.type === 'text-delta') onDelta(part.text);
          if (part.type === 'error') throw part.error;
        }
        const [text, toolCalls, usage, finishReason, raw] = await Promise.all([
          result.text,
          result.toolCalls,
          result.usage,
          result.finishReason,
          result.response,
        ]);
        return toResponse({ text, toolCalls, usage, finishReason, raw });
      }
      let result: Awaited<ReturnType<typeof generateText>>;
      try {
        result = await generateText(settings(request));
      } catch (error) {
        // The provider answered but not with the schema's object: its text goes on to statecrew's
        // own parsing (a fenced JSON block is fine) and validation, which retries with output_invalid.
        if (!NoObjectGeneratedError.isInstance(error)) throw error;
        return toResponse({
          text: error.text ?? '',
          toolCalls: [],
          usage: error.usage ?? {},
          finishReason: error.finishReason ?? 'stop',
          raw: error.response,
        });
      }
      // The result's fields are getters: name them (a spread would copy none).
      const { text, toolCalls, usage, finishReason, response } = result;
      return toResponse({ text, toolCalls, usage, finishReason, raw: response });
    },
  };
}

/** `{ [key]: value }` when the value is set, else nothing (the AI SDK takes no `undefined` settings). */
function pick<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}

/** `<provider>:<model id>` of an AI SDK model (`openai.chat` → `openai`), or a model string as it is. */
function idOf(model: LanguageModel): string {
  if (typeof model === 'string') return model;
  return `${model.provider.split('.')[0]}:${model.modelId}`;
}

/** What both ways of calling give back, as the AI SDK names it. */
interface AiResult {
  text: string;
  toolCalls: readonly { toolCallId: string; toolName: string; input: unknown }[];
  usage: { inputTokens?: number | undefined; outputTokens?: number | undefined };
  finishReason: string;
  raw: unknown;
}

function toResponse(result: AiResult): ModelResponse {
  const { usage } = result;
  return {
    text: result.text,
    toolCalls: result.toolCalls.map((call) => ({
      id: call.toolCallId,
      name: call.toolName,
      args: call.input,
    })),
    usage: {
      ...(usage.inputTokens === undefined ? {} : { inputTokens: usage.inputTokens }),
      ...(usage.outputTokens === undefined ? {} : { outputTokens: usage.outputTokens }),
    },
    finishReason: result.finishReason,
    raw: result.raw,
  };
}

/** A statecrew message as the AI SDK takes it. */
function toAiMessage(message: ModelMessage): AiMessage {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        content: [
          ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
          ...calls.map((call) => ({
            type: 'tool-call' as const,
            toolCallId: call.id,
            toolName: call.name,
            input: call.args,
          })),
        ],
      };
    }
    case 'tool':
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: message.toolCallId,
            toolName: message.name,
            output: { type: 'text', value: message.content },
          },
        ],
      };
  }
}

/** The request's tools as AI SDK tools without `execute`: the model may call them; statecrew runs them. */
function toAiTools(specs: readonly ToolSpec[]): ToolSet {
  const tools: ToolSet = {};
  for (const spec of specs) {
    tools[spec.name] = tool({ description: spec.description, inputSchema: jsonSchema(spec.parameters) });
  }
  return tools;
}

/**
 * Adapts an AI SDK embedding model (`openai.embedding('text-embedding-3-small')`, …) for a crew's
 * execution memory (`memory: { embed }`): one `embedMany` per batch, its tokens and provider calls
 * reported, the AI SDK's own retries off.
 *
 * @example
 * new Crew({ tasks, memory: { embed: fromAiSdkEmbedding(openai.embedding('text-embedding-3-small')) } });
 */
export function fromAiSdkEmbedding(
  model: EmbeddingModelV3Like,
  options: { id?: string } = {},
): EmbeddingModel {
  return {
    ...(options.id === undefined ? {} : { id: options.id }),
    async embed(texts, { signal }) {
      const result = await embedMany({ model, values: texts, abortSignal: signal, maxRetries: 0 });
      // The AI SDK splits a batch into as many provider calls as the model takes: each is counted.
      const calls = result.responses?.length ?? 1;
      return { embeddings: result.embeddings, usage: { tokens: result.usage.tokens, calls } };
    },
  };
}

/** An AI SDK embedding model of strings, as `embedMany` takes it. */
export type EmbeddingModelV3Like = Parameters<typeof embedMany>[0]['model'];
