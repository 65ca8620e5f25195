import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { afterAll, describe, expect, it } from 'vitest';
import { fromAiSdk } from '../../src/ai-sdk.js';
import { Agent, Crew, createRecordReplay, Task } from '../../src/index.js';
import { startOpenAiServer } from '../fixtures/openai-server.js';

const root = mkdtempSync(join(tmpdir(), 'statecrew-cassettes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function crewOf(llm: ConstructorParameters<typeof Agent>[0]['llm']) {
  const researcher = new Agent({ role: 'Researcher', llm, maxRetries: 0 });
  const writer = new Agent({ role: 'Writer', llm, maxRetries: 0 });
  return new Crew({
    tasks: [
      new Task({ name: 'research', description: 'Research AI', agent: researcher }),
      new Task({ name: 'write', description: 'Write it up', agent: writer }),
    ],
  });
}

describe('record and replay', () => {
  it('records real calls once, then replays them offline, matched on the request, not on order', async () => {
    const cassette = join(root, 'nested', 'research.json');
    const server = await startOpenAiServer((request) => ({
      content: `answer to ${String(request.messages.at(-1)?.content).split('\n')[0]}`,
    }));
    const live = fromAiSdk(createOpenAI({ baseURL: server.url, apiKey: 'k' }).chat('gpt-test'));
    const recorded = await crewOf(createRecordReplay(live, { cassette, mode: 'record' })).kickoff();
    await server.close();
    expect(server.requests).toHaveLength(2);
    const file = JSON.parse(readFileSync(cassette, 'utf8')) as { recordings: unknown[] };
    expect(file.recordings).toHaveLength(2);

    // Offline: no model, no server; a replayed run gives the recorded outputs.
    const replayed = await crewOf(createRecordReplay(undefined, { cassette, mode: 'replay' })).kickoff();
    expect(replayed.tasksOutput.map((t) => t.raw)).toEqual(recorded.tasksOutput.map((t) => t.raw));
    expect(replayed.raw).toBe('answer to Task: Write it up');
  });

  it('replays by content: requests asked in another order get their own answers', async () => {
    const cassette = join(root, 'order.json');
    const ask = (text: string) => ({
      agent: 'A',
      system: 'You are A.',
      prompt: text,
      context: '',
      messages: [{ role: 'user' as const, content: text }],
      tools: [],
      signal: new AbortController().signal,
    });
    const echo = { generate: async (request: { prompt: string }) => ({ text: `re: ${request.prompt}` }) };
    const recorder = createRecordReplay(echo, { cassette, mode: 'record' });
    await recorder.generate(ask('first'));
    await recorder.generate(ask('second'));
    const replay = createRecordReplay(undefined, { cassette, mode: 'replay' });
    expect((await replay.generate(ask('second'))).text).toBe('re: second');
    expect((await replay.generate(ask('first'))).text).toBe('re: first');
  });

  it('matches on the output schema too: the same conversation asked for another shape is a miss', async () => {
    const cassette = join(root, 'schema.json');
    const ask = (schema?: Record<string, unknown>) => ({
      agent: 'A',
      system: '',
      prompt: 'p',
      context: '',
      messages: [{ role: 'user' as const, content: 'p' }],
      tools: [],
      signal: new AbortController().signal,
      ...(schema === undefined ? {} : { schema }),
    });
    const shapes = { type: 'object', properties: { n: { type: 'number' } } };
    const echo = {
      generate: async (request: { schema?: unknown }) => ({ text: request.schema ? '{"n":1}' : 'plain' }),
    };
    const recorder = createRecordReplay(echo, { cassette, mode: 'record' });
    await recorder.generate(ask(shapes));
    await recorder.generate(ask());
    const replay = createRecordReplay(undefined, { cassette, mode: 'replay' });
    expect((await replay.generate(ask(shapes))).text).toBe('{"n":1}');
    expect((await replay.generate(ask())).text).toBe('plain');
    await expect(replay.generate(ask({ type: 'string' }))).rejects.toMatchObject({ code: 'cassette_miss' });
  });

  it('fails a request it never recorded with cassette_miss, showing the closest recording', async () => {
    const cassette = join(root, 'miss.json');
    const server = await startOpenAiServer(() => ({ content: 'ok' }));
    const live = fromAiSdk(createOpenAI({ baseURL: server.url, apiKey: 'k' }).chat('gpt-test'));
    await crewOf(createRecordReplay(live, { cassette })).kickoff(); // auto: records what is missing
    await server.close();
    const other = new Crew({
      tasks: [
        new Task({
          name: 't',
          description: 'Something else',
          agent: new Agent({
            role: 'Researcher',
            llm: createRecordReplay(undefined, { cassette, mode: 'replay' }),
            maxRetries: 0,
          }),
        }),
      ],
    });
    const out = await other.kickoff();
    expect(out.failures.t?.code).toBe('cassette_miss');
    expect(out.errors.t).toMatch(/Task: Something else/);
    expect(out.errors.t).toMatch(/the closest recorded request: .*Task: Research AI/);
  });

  it('keeps the recorded model’s id and rate limit, and a replay takes its id as an option', () => {
    const echo = { id: 'openai:gpt-test', maxRpm: 60, generate: async () => ({ text: 'x' }) };
    const recording = createRecordReplay(echo, { cassette: join(root, 'ids.json'), mode: 'record' });
    expect(recording).toMatchObject({ id: 'openai:gpt-test', maxRpm: 60 });
    const replay = createRecordReplay(undefined, {
      cassette: join(root, 'ids.json'),
      mode: 'replay',
      id: 'openai:x',
    });
    expect(replay.id).toBe('openai:x');
    expect(
      createRecordReplay(undefined, { cassette: join(root, 'ids.json'), mode: 'replay' }).id,
    ).toBeUndefined();
  });

  it('refuses a mode it does not know and recording without a model (invalid_option)', () => {
    expect(() => createRecordReplay(undefined, { cassette: 'x.json', mode: 'live' as never })).toThrow(
      /option "mode"/,
    );
    expect(() => createRecordReplay(undefined, { cassette: 'x.json', mode: 'record' })).toThrow(
      /option "model"/,
    );
  });
});
