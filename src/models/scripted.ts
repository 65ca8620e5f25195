import { ModelResponseError, ScriptExhaustedError } from '../errors.js';
import type { Model, ModelRequest, ModelResponse } from '../types.js';

/**
 * A scripted reply streamed in pieces: its text is the pieces joined; a request that streams
 * (`onDelta`) gets each piece as it comes. Pieces from an async iterable (`holdText`) come when it
 * yields them, so a test decides when.
 */
export interface StreamedReply {
  chunks: Iterable<string> | AsyncIterable<string>;
  /** The call's usage. @default estimated from the request and the text */
  usage?: ModelResponse['usage'];
}

/**
 * One scripted reply: text, a full response, text streamed in pieces, an error to throw, or a
 * function computing one of those.
 */
export type ScriptedReply =
  | string
  | ModelResponse
  | StreamedReply
  | Error
  | ((
      request: ModelRequest,
      call: number,
    ) => string | ModelResponse | StreamedReply | Promise<string | ModelResponse | StreamedReply>);

/**
 * A script: replies in call order, or one function deciding each reply from the request (an `async`
 * function too: its promise is awaited).
 */
export type Script =
  | readonly ScriptedReply[]
  | ((request: ModelRequest, call: number) => ScriptedReply | Promise<ScriptedReply>);

/** A request as the scripted model recorded it (the signal left out). */
export type RecordedRequest = Omit<ModelRequest, 'signal'>;

/** A {@link Model} that answers from a script and records every request it got. */
export interface ScriptedModel extends Model {
  /** Every request, in call order. */
  readonly calls: readonly RecordedRequest[];
  /** Calls started and not yet answered. */
  readonly inFlight: number;
  /** The most calls that were ever in flight at once. */
  readonly peakInFlight: number;
  /** Requests whose signal was aborted while their call was in flight. */
  readonly aborted: readonly RecordedRequest[];
}

/**
 * A deterministic model for tests and examples. Replies come from `script` in call order (or from a
 * function of the request, whose promise is awaited when it is `async`), a reply's `chunks` streamed
 * to a request that streams; usage is estimated as one token per four characters unless a reply gives
 * its own. A call past the end of a list script fails with `script_exhausted`; anything a script
 * gives that is not a reply fails with `invalid_model_response`, naming what it gave. A pending reply
 * rejects with the signal's reason when the request's signal aborts.
 *
 * @example
 * const llm = createScriptedModel(['three facts', 'a draft', 'the final text']);
 */
export function createScriptedModel(script: Script): ScriptedModel {
  const calls: RecordedRequest[] = [];
  const aborted: RecordedRequest[] = [];
  let inFlight = 0;
  let peakInFlight = 0;

  const pick = (request: ModelRequest, call: number): ScriptedReply | Promise<ScriptedReply> => {
    if (typeof script === 'function') return script(request, call);
    const reply = script[call];
    if (reply === undefined) throw new ScriptExhaustedError(call + 1, script.length);
    return reply;
  };

  const answer = async (request: ModelRequest, call: number): Promise<ModelResponse> => {
    const picked = pick(request, call);
    // A reply given at once is used at once: a test that releases a held reply right after the script
    // was called finds it held.
    const reply: unknown = picked instanceof Promise ? await picked : picked;
    if (reply instanceof Error) throw reply;
    const value: unknown = typeof reply === 'function' ? await reply(request, call) : reply;
    if (typeof value === 'string') return withUsage({ text: value }, request);
    if (isStreamed(value)) return withUsage(await streamed(value, request), request);
    if (isResponse(value)) return withUsage(value, request);
    // What a script gives that is not a reply (`undefined` from a function that forgot to return, a
    // number, an object without text) is named, not read as one.
    throw new ModelResponseError(request.agent, value);
  };

  return {
    get calls() {
      return calls;
    },
    get inFlight() {
      return inFlight;
    },
    get peakInFlight() {
      return peakInFlight;
    },
    get aborted() {
      return aborted;
    },
    async generate(request) {
      const { signal, ...recorded } = request;
      const call = calls.push(recorded) - 1;
      signal.throwIfAborted();
      inFlight += 1;
      peakInFlight = Math.max(peakInFlight, inFlight);
      try {
        return await raceAbort(answer(request, call), signal, () => aborted.push(recorded));
      } finally {
        inFlight -= 1;
      }
    },
  };
}

function isStreamed(value: unknown): value is StreamedReply {
  if (typeof value !== 'object' || value === null || !('chunks' in value)) return false;
  const { chunks } = value as { chunks: unknown };
  if (typeof chunks === 'string') return true;
  return (
    typeof chunks === 'object' &&
    chunks !== null &&
    (Symbol.iterator in chunks || Symbol.asyncIterator in chunks)
  );
}

function isResponse(value: unknown): value is ModelResponse {
  return (
    typeof value === 'object' && value !== null && typeof (value as { text?: unknown }).text === 'string'
  );
}

/** `response`, its usage estimated from the request and its text when it gives none. */
function withUsage(response: ModelResponse, request: ModelRequest): ModelResponse {
  return response.usage ? response : { ...response, usage: estimateUsage(request, response.text) };
}

/** A streamed reply's response, its pieces passed to the request's `onDelta` as they come. */
async function streamed(reply: StreamedReply, request: ModelRequest): Promise<ModelResponse> {
  let text = '';
  for await (const chunk of reply.chunks) {
    // An aborted call has settled already: nothing more of it reaches the run.
    if (request.signal.aborted) break;
    text += chunk;
    request.onDelta?.(chunk);
  }
  return reply.usage === undefined ? { text } : { text, usage: reply.usage };
}

function estimateUsage(request: ModelRequest, text: string) {
  const input = request.messages.reduce((sum, m) => sum + m.content.length, 0);
  return { inputTokens: Math.ceil(input / 4), outputTokens: Math.ceil(text.length / 4) };
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal, onAbort: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      onAbort();
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
