import { ModelResponseError } from '../errors.js';
import type { Llm, Model, ModelRequest, ModelResponse } from '../types.js';

/** True when `llm` is a {@link Model} rather than a policy function. */
export function isModel(llm: Llm): llm is Model {
  return typeof llm === 'object' && llm !== null && typeof llm.generate === 'function';
}

/**
 * Asks `llm` for one reply. A policy gets `(prompt, context, { signal })` and its string becomes the
 * text; a model gets the whole request. Anything that is not text is a {@link ModelResponseError}.
 * The signal is the policy's to honour: a run that is aborted settles at once whatever its calls do.
 */
export function callLlm(llm: Llm, request: ModelRequest): Promise<ModelResponse> {
  if (isModel(llm)) return callModel(llm, request);
  let reply: unknown;
  try {
    reply = llm(request.prompt, request.context, { signal: request.signal });
  } catch (error) {
    return Promise.reject(error);
  }
  // Callbacks rather than an async frame: a policy's call is on every task's hot path.
  return Promise.resolve(reply).then((text: unknown) => {
    if (typeof text !== 'string') throw new ModelResponseError(request.agent, text);
    return { text };
  });
}

async function callModel(llm: Model, request: ModelRequest): Promise<ModelResponse> {
  const response: unknown = await llm.generate(request);
  if (!isModelResponse(response)) throw new ModelResponseError(request.agent, response);
  return response;
}

function isModelResponse(value: unknown): value is ModelResponse {
  if (typeof value !== 'object' || value === null) return false;
  const { text, toolCalls } = value as { text?: unknown; toolCalls?: unknown };
  return typeof text === 'string' && (toolCalls === undefined || Array.isArray(toolCalls));
}
