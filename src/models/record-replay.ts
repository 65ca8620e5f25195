import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CassetteMissError, InvalidOptionError } from '../errors.js';
import type { Model, ModelRequest, ModelResponse } from '../types.js';

/** How {@link createRecordReplay} uses its cassette. */
export type CassetteMode = 'record' | 'replay' | 'auto';

/** Options of {@link createRecordReplay}. */
export interface RecordReplayOptions {
  /** The cassette file (JSON), created with its directory when recording. */
  cassette: string;
  /**
   * `replay`: answer from the cassette only (a request it does not hold fails with `cassette_miss`);
   * `record`: call the model and write every answer; `auto`: replay what is recorded, record the rest.
   * @default 'auto'
   */
  mode?: CassetteMode | undefined;
  /** The id prices and rate limits know it by. @default the recorded model's `id` */
  id?: string | undefined;
}

/** One recorded call: what was asked (the parts that decide the answer) and what came back. */
interface Recording {
  request: RecordedRequest;
  response: ModelResponse;
}

interface RecordedRequest {
  system: string;
  messages: ModelRequest['messages'];
  tools: ModelRequest['tools'];
  /** Only when the request asks for structured output. */
  schema?: ModelRequest['schema'];
}

interface CassetteFile {
  version: 1;
  recordings: Recording[];
}

/** What decides a recorded answer: the request's content, not its order (or its signal). */
function recordedRequest(request: ModelRequest): RecordedRequest {
  const asked: RecordedRequest = { system: request.system, messages: request.messages, tools: request.tools };
  if (request.schema !== undefined) asked.schema = request.schema;
  return asked;
}

const keyOf = (request: RecordedRequest) => JSON.stringify(request);

function load(path: string): Recording[] {
  if (!existsSync(path)) return [];
  const file = JSON.parse(readFileSync(path, 'utf8')) as Partial<CassetteFile>;
  if (file.version !== 1 || !Array.isArray(file.recordings)) {
    throw new InvalidOptionError(
      'createRecordReplay',
      'cassette',
      'a cassette file written by createRecordReplay',
      path,
    );
  }
  return file.recordings;
}

/** How alike two requests are, for the miss error's closest match: the length of their common JSON prefix. */
function likeness(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  return i;
}

/**
 * Records a model's answers once and replays them offline: each call is matched on its request's
 * content (system message, messages, tools, the output schema), not on call order, so concurrent or reordered runs
 * replay the same. A replayed request that was never recorded fails with `cassette_miss`, showing
 * the closest recorded request. Replay needs no network and no key: it is how tests and examples run
 * real-model crews offline.
 *
 * @example
 * const llm = createRecordReplay(fromAiSdk(openai.chat('gpt-4.1-mini')), { cassette: 'cassettes/research.json' });
 */
export function createRecordReplay(model: Model | undefined, options: RecordReplayOptions): Model {
  const mode = options.mode ?? 'auto';
  if (!['record', 'replay', 'auto'].includes(mode)) {
    throw new InvalidOptionError('createRecordReplay', 'mode', "'record', 'replay' or 'auto'", mode);
  }
  if (mode !== 'replay' && model === undefined) {
    throw new InvalidOptionError(
      'createRecordReplay',
      'model',
      `a model to record from (mode '${mode}')`,
      model,
    );
  }
  const path = options.cassette;
  const recordings = mode === 'record' ? [] : load(path);
  const byKey = new Map(recordings.map((r) => [keyOf(r.request), r.response]));
  const save = () => {
    mkdirSync(dirname(path), { recursive: true });
    const file: CassetteFile = { version: 1, recordings };
    writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`);
  };
  const id = options.id ?? model?.id;
  return {
    ...(id === undefined ? {} : { id }),
    ...(model?.maxRpm === undefined ? {} : { maxRpm: model.maxRpm }),
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const asked = recordedRequest(request);
      const key = keyOf(asked);
      const recorded = mode === 'record' ? undefined : byKey.get(key);
      if (recorded !== undefined) return structuredClone(recorded);
      if (mode === 'replay' || model === undefined) {
        const closest = recordings
          .map((r) => ({ r, score: likeness(keyOf(r.request), key) }))
          .sort((a, b) => b.score - a.score)[0]?.r.request;
        throw new CassetteMissError(path, asked, closest);
      }
      const response = await model.generate(request);
      const { raw: _raw, ...kept } = response; // the provider's raw response stays out of the file
      const clean = JSON.parse(JSON.stringify(kept)) as ModelResponse;
      recordings.push({ request: JSON.parse(key) as RecordedRequest, response: clean });
      byKey.set(key, clean);
      save();
      return response;
    },
  };
}
