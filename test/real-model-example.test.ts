import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { CASSETTE, FACTS, INPUTS, lookup, pickModel, report, researchCrew } from '../examples/real-model.js';
import { ANSWERS, recordCassette, STAND_IN_NOTE, standInReply } from '../examples/record-cassette.js';
import { type OpenAiServer, startOpenAiServer } from './fixtures/openai-server.js';

const root = mkdtempSync(join(tmpdir(), 'statecrew-real-model-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let server: OpenAiServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

const cassetteFile = (path: string) =>
  JSON.parse(readFileSync(path, 'utf8')) as { version: number; note?: string; recordings: unknown[] };

describe('the real-model example', () => {
  it('replays the committed cassette offline: the outputs, the tool calls, the usage and cost, no network', async () => {
    const fetched = vi.spyOn(globalThis, 'fetch');
    const choice = pickModel({}); // no key, no base URL: the cassette
    expect(choice.mode).toBe('replay');
    expect(choice.id).toBe('openai:gpt-4.1-mini');
    const { crew, research, write, edit } = researchCrew(choice.model);
    const out = await crew.kickoff({ inputs: INPUTS });
    expect(fetched).not.toHaveBeenCalled();
    expect(out.status).toBe('completed');
    expect(out.failures).toEqual({}); // no cassette_miss: the cassette holds every request the crew makes
    expect(out.outputOf(research)?.raw).toBe(ANSWERS.research);
    expect(out.outputOf(write)?.raw).toBe(ANSWERS.draft);
    expect(out.outputOf(edit)?.structured).toEqual(ANSWERS.edited);
    expect(out.nodes[0]?.toolCalls).toEqual([
      { tool: 'lookup', args: { term: 'actor model' }, result: FACTS['actor model'] },
      { tool: 'lookup', args: { term: 'statecharts' }, result: FACTS.statecharts },
      { tool: 'lookup', args: { term: 'xstate' }, result: FACTS.xstate },
    ]);
    expect(out.nodes.map((n) => n.usage.calls)).toEqual([2, 1, 1, 1]);
    expect(out.nodes.at(-1)).toMatchObject({ nodeId: 'summary', agent: 'Summarizer', status: 'completed' });
    expect(out.summary).toBe(ANSWERS.summary);
    expect(out.usage).toMatchObject({ inputTokens: 1606, outputTokens: 456, totalTokens: 2062, calls: 5 });
    expect(out.usage.costUsd).toBeCloseTo((1606 * 0.4 + 456 * 1.6) / 1_000_000, 12);

    const text = report(choice, out);
    expect(text).toContain(
      'mode: replaying the cassette examples/cassettes/real-model.json (no network, no key)',
    );
    expect(text).toContain(`note: ${STAND_IN_NOTE}`);
    expect(text).toContain('tool lookup({"term":"actor model"}) → Carl Hewitt');
    expect(text).toContain(`title: ${ANSWERS.edited.title}`);
    expect(text).toContain(`summary: ${ANSWERS.summary}`);
    expect(text).toContain('usage: 1606 input + 456 output tokens in 5 model calls');
    expect(text).toContain('cost: $0.001372 (openai:gpt-4.1-mini at $0.40 / $1.60');
  });

  it('the committed cassette carries its note, which the loader ignores', () => {
    const file = cassetteFile(CASSETTE);
    expect(file.version).toBe(1);
    expect(file.note).toBe(STAND_IN_NOTE);
    expect(file.recordings).toHaveLength(5);
  });

  it('goes live against STATECREW_BASE_URL: the persona as system message, the tool offered, results fed back', async () => {
    server = await startOpenAiServer((request) => standInReply(request));
    const choice = pickModel({ STATECREW_BASE_URL: server.url, STATECREW_MODEL: 'gpt-4.1-nano' });
    expect(choice.mode).toBe('live');
    expect(choice.id).toBe('openai:gpt-4.1-nano');
    const { crew, edit } = researchCrew(choice.model);
    const out = await crew.kickoff({ inputs: INPUTS });
    expect(out.status).toBe('completed');
    expect(out.outputOf(edit)?.structured).toEqual(ANSWERS.edited);
    expect(out.usage.costUsd).toBeCloseTo(
      (out.usage.inputTokens * 0.1 + out.usage.outputTokens * 0.4) / 1_000_000,
      12,
    );

    const [lookUp, answer, draft, edited, summary] = server.requests;
    expect(server.requests).toHaveLength(5);
    expect(server.requests.map((r) => r.model)).toEqual(Array(5).fill('gpt-4.1-nano'));
    expect(lookUp?.messages).toEqual([
      {
        role: 'system',
        content:
          'You are Researcher. Your goal: find accurate, sourced facts about actors for orchestrating AI agents. ' +
          'Backstory: a former reference librarian who cites a source for every claim.',
      },
      {
        role: 'user',
        content:
          'Task: Research actors for orchestrating AI agents. Look up every fact you use with the lookup tool.\n' +
          'Expected output: Three bullet points, one fact each, naming the term it came from',
      },
    ]);
    expect(lookUp?.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'lookup',
          description: lookup.description,
          parameters: expect.objectContaining({
            type: 'object',
            properties: { term: expect.objectContaining({ type: 'string' }) },
            required: ['term'],
          }),
        },
      },
    ]);
    // The tool's results go back with the ids of the calls they answer.
    expect(answer?.messages.slice(-3)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: FACTS['actor model'] },
      { role: 'tool', tool_call_id: 'call_2', content: FACTS.statecharts },
      { role: 'tool', tool_call_id: 'call_3', content: FACTS.xstate },
    ]);
    // The writer reads the research; the editor reads the draft and asks for the schema's JSON.
    expect(draft?.messages[0]?.content).toMatch(/^You are Writer\. /);
    expect(draft?.messages[1]?.content).toContain(`\n\nContext:\n${ANSWERS.research}`);
    expect(draft?.tools).toBeUndefined();
    expect(edited?.messages[1]?.content).toContain(`\n\nContext:\n${ANSWERS.draft}`);
    const format = edited?.response_format as { type: string; json_schema: { schema: unknown } };
    expect(format.type).toBe('json_schema');
    expect(format.json_schema.schema).toMatchObject({ required: ['title', 'paragraph'] });
    // The summary node reads every task's output under its name.
    expect(summary?.messages[0]?.content).toMatch(/^You are Summarizer\. /);
    expect(summary?.messages[1]?.content).toContain(
      `Context:\nresearch:\n${ANSWERS.research}\n\nwrite:\n${ANSWERS.draft}\n\nedit:\n`,
    );
    expect(out.summary).toBe(ANSWERS.summary);
  });

  it('picks the model from the environment', () => {
    const cassette = join(root, 'picked.json');
    expect(pickModel({ OPENAI_API_KEY: 'sk-test' }, cassette)).toMatchObject({
      mode: 'live',
      id: 'openai:gpt-4.1-mini',
      source: ['live: gpt-4.1-mini at https://api.openai.com/v1'],
    });
    expect(pickModel({ OPENAI_API_KEY: '', STATECREW_BASE_URL: '' }, cassette).mode).toBe('replay');
    const recording = pickModel({ OPENAI_API_KEY: 'sk-test', STATECREW_RECORD: '1' }, cassette);
    expect(recording.mode).toBe('record');
    expect(recording.id).toBe('openai:gpt-4.1-mini');
    expect(() => pickModel({ STATECREW_RECORD: '1' }, cassette)).toThrow(
      /OPENAI_API_KEY or STATECREW_BASE_URL/,
    );
  });

  it('re-recording against the stand-in gives the committed cassette: it cannot drift from the code', async () => {
    const cassette = join(root, 'nested', 'real-model.json');
    const out = await recordCassette(cassette);
    expect(out.status).toBe('completed');
    expect(cassetteFile(cassette)).toEqual(cassetteFile(CASSETTE));
  });
});
