import { createOpenAI } from '@ai-sdk/openai';
import { describe, expect, it } from 'vitest';
import { fromAiSdk } from '../../src/ai-sdk.js';
import {
  Agent,
  Crew,
  createResultsTool,
  type EmbeddingModel,
  ExecutionDocument,
  type MemoryEntry,
  MemoryStore,
  StatecrewError,
  Task,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { startOpenAiServer } from '../fixtures/openai-server.js';
import { taskLine } from '../helpers.js';

const results = createResultsTool();

/** A model that, on the task `asker`, first calls the results tool with `args`, then answers with what it got. */
function askingModel(asker: string, args: Record<string, unknown>) {
  return createScriptedModel((request) => {
    const task = taskLine(request.prompt).slice('Task: '.length);
    if (task !== asker)
      return { text: `${task} by ${request.agent}`, usage: { inputTokens: 1, outputTokens: 1 } };
    const seen = request.messages.find((m) => m.role === 'tool');
    if (seen === undefined) return { text: '', toolCalls: [{ id: 'r1', name: 'results', args }] };
    return { text: seen.content };
  });
}

const parsed = (text: string) => JSON.parse(text) as MemoryEntry[];

describe('execution memory and the results tool', () => {
  it('recalls earlier results in completion order across a sequential crew', async () => {
    const llm = askingModel('summarize', { last: 2 });
    const writer = new Agent({ role: 'Writer', llm });
    const editor = new Agent({ role: 'Editor', llm, tools: [results] });
    const tasks = [
      new Task({ name: 'research', description: 'research', agent: writer }),
      new Task({ name: 'draft', description: 'draft', agent: writer }),
      new Task({ name: 'outline', description: 'outline', agent: writer }),
      new Task({ name: 'summary-task', description: 'summarize', agent: editor }),
    ];
    const out = await new Crew({ tasks, memory: true }).kickoff();
    expect(parsed(out.raw)).toEqual([
      { nodeId: 'draft', task: 'draft', agent: 'Writer', raw: 'draft by Writer' },
      { nodeId: 'outline', task: 'outline', agent: 'Writer', raw: 'outline by Writer' },
    ]);
  });

  it('lets a loop iteration read every earlier iteration’s drafts, by task', async () => {
    const llm = createScriptedModel((request) => {
      const task = taskLine(request.prompt).slice('Task: '.length);
      if (task === 'draft') return `draft ${request.context === '' ? 1 : 2}`;
      const seen = request.messages.find((m) => m.role === 'tool');
      if (seen === undefined)
        return { text: '', toolCalls: [{ id: 'r', name: 'results', args: { task: 'draft', last: 5 } }] };
      return { text: seen.content };
    });
    const writer = new Agent({ role: 'Writer', llm, tools: [results] });
    const judge = createScriptedModel(['NO', 'YES']);
    const crew = new Crew({
      tasks: [
        new Task({ name: 'draft', description: 'draft', agent: writer }),
        new Task({ name: 'compare', description: 'compare', agent: writer }),
      ],
      process: 'loop',
      loop: { condition: 'good', judge, maxIterations: 2 },
      memory: true,
    });
    const out = await crew.kickoff();
    const seen = parsed(out.raw);
    expect(seen.map((e) => [e.nodeId, e.task, e.iteration])).toEqual([
      ['draft#1', 'draft', 1],
      ['draft#2', 'draft', 2],
    ]);
  });

  it('ranks by meaning with an embedding model (the best match is not the latest), each result embedded once', async () => {
    const embedded: string[] = [];
    const topics = ['cats', 'rockets', 'soup'];
    const embed: EmbeddingModel = {
      async embed(texts) {
        embedded.push(...texts);
        return {
          embeddings: texts.map((t) => topics.map((topic) => (t.includes(topic) ? 1 : 0))),
          usage: { tokens: texts.length * 10 },
        };
      },
    };
    const none = { inputTokens: 0, outputTokens: 0 };
    const llm = createScriptedModel((request) => {
      const task = taskLine(request.prompt).slice('Task: '.length);
      const tools = request.messages.filter((m) => m.role === 'tool');
      if (task !== 'ask') return { text: `notes on ${task}`, usage: { inputTokens: 0, outputTokens: 0 } };
      if (tools.length === 0)
        return {
          text: '',
          toolCalls: [{ id: 'a', name: 'results', args: { query: 'rockets', last: 1 } }],
          usage: none,
        };
      if (tools.length === 1)
        return {
          text: '',
          toolCalls: [{ id: 'b', name: 'results', args: { query: 'cats', last: 1 } }],
          usage: none,
        };
      return { text: tools.map((m) => m.content).join('|'), usage: { inputTokens: 0, outputTokens: 0 } };
    });
    const agent = new Agent({ role: 'A', llm, tools: [results] });
    const tasks = ['cats', 'rockets', 'soup', 'ask'].map(
      (name) => new Task({ name, description: name, agent }),
    );
    const out = await new Crew({ tasks, memory: { embed } }).kickoff();
    const [first, second] = out.raw.split('|').map(parsed);
    expect(first?.map((e) => e.task)).toEqual(['rockets']);
    expect(second?.map((e) => e.task)).toEqual(['cats']);
    // Three results embedded once each, plus each query.
    expect(embedded).toEqual(['notes on cats', 'notes on rockets', 'notes on soup', 'rockets', 'cats']);
    const ask = out.nodes.find((n) => n.nodeId === 'ask');
    expect(ask?.usage).toMatchObject({ calls: 5, inputTokens: 50 }); // 3 model calls (0 tokens) + 2 embedding calls
    expect(out.usage.calls).toBe(3 + 3 + 2);
  });

  it('keeps the memory in the durable record: a resumed run’s agents see the restored results', async () => {
    const store = new MemoryStore();
    const failing = createScriptedModel((request) => {
      if (taskLine(request.prompt) === 'Task: check')
        throw new StatecrewError('output_invalid', 'down', { retryable: false });
      return `${taskLine(request.prompt)} done`;
    });
    const crewOf = (llm: ReturnType<typeof createScriptedModel>) =>
      new Crew({
        tasks: [
          new Task({ name: 'gather', description: 'gather', agent: new Agent({ role: 'W', llm }) }),
          new Task({
            name: 'check',
            description: 'check',
            agent: new Agent({ role: 'C', llm, tools: [results] }),
          }),
        ],
        memory: true,
        store,
      });
    const first = await crewOf(failing).kickoff({ executionId: 'm' });
    expect(first.status).toBe('partial');
    const doc = await ExecutionDocument.fromStore(store, 'm');
    expect(doc?.memory()).toEqual([
      { nodeId: 'gather', task: 'gather', agent: 'W', raw: 'Task: gather done' },
    ]);
    const out = await crewOf(askingModel('check', {})).resume('m');
    expect(parsed(out.raw).map((e) => e.raw)).toEqual(['Task: gather done']);
  });

  it('is read only through the tool: an agent not granted it is refused, a crew without memory says so', async () => {
    const llm = askingModel('peek', {});
    const nosy = new Agent({ role: 'Nosy', llm, maxIter: 2 });
    const tasks = [
      new Task({ name: 'secret', description: 'secret', agent: new Agent({ role: 'W', llm }) }),
      new Task({ name: 'peek', description: 'peek', agent: nosy }),
    ];
    const out = await new Crew({ tasks, memory: true }).kickoff();
    expect(out.nodes[1]?.toolCalls[0]?.error).toMatch(/unknown tool "results"/);
    const granted = new Agent({ role: 'Nosy', llm, tools: [results] });
    const without = await new Crew({
      tasks: [tasks[0] as Task, new Task({ name: 'peek', description: 'peek', agent: granted })],
    }).kickoff();
    expect(without.raw).toMatch(/^No execution memory here: the crew keeps none/);
    expect(() => new Crew({ tasks, memory: { topK: 0 } })).toThrow(/option "memory.topK"/);
  });

  it('answers a real tool loop over the OpenAI wire protocol asking for results', async () => {
    const server = await startOpenAiServer((request, n) => {
      const tool = request.messages.find((m) => m.role === 'tool');
      const asks =
        String(request.messages.at(-1)?.content ?? '').includes('Task: report') || tool !== undefined;
      if (!asks) return { content: `facts #${n}` };
      if (tool === undefined)
        return { toolCalls: [{ id: 'call_1', name: 'results', arguments: { last: 1 } }] };
      return { content: `report from ${String(tool.content)}` };
    });
    try {
      const llm = fromAiSdk(createOpenAI({ baseURL: server.url, apiKey: 'k' }).chat('gpt-test'));
      const tasks = [
        new Task({ name: 'facts', description: 'facts', agent: new Agent({ role: 'R', llm }) }),
        new Task({
          name: 'report',
          description: 'report',
          agent: new Agent({ role: 'W', llm, tools: [results] }),
        }),
      ];
      const out = await new Crew({ tasks, memory: true }).kickoff();
      expect(out.raw).toBe(
        `report from ${JSON.stringify([{ nodeId: 'facts', task: 'facts', agent: 'R', raw: 'facts #0' }])}`,
      );
      const offered = server.requests[1]?.tools?.map((t) => t.function.name);
      expect(offered).toEqual(['results']);
    } finally {
      await server.close();
    }
  });
});

describe('fromAiSdkEmbedding', () => {
  it('embeds through an AI SDK embedding model and reports its tokens', async () => {
    const { MockEmbeddingModelV3 } = await import('ai/test');
    const { fromAiSdkEmbedding } = await import('../../src/ai-sdk.js');
    const model = new MockEmbeddingModelV3({
      doEmbed: async ({ values }) => ({
        embeddings: values.map((v) => [v.length, 1]),
        usage: { tokens: values.length * 3 },
        warnings: [],
      }),
    });
    const embed = fromAiSdkEmbedding(model, { id: 'mock:embed' });
    const out = await embed.embed(['ab', 'abcd'], { signal: new AbortController().signal });
    expect(out).toEqual({
      embeddings: [
        [2, 1],
        [4, 1],
      ],
      usage: { tokens: 6, calls: 2 },
    });
    expect(embed.id).toBe('mock:embed');
    // The mock takes one text per provider call: two calls, both counted.
    expect(model.doEmbedCalls).toHaveLength(2);
  });
});

describe('a flow step’s results', () => {
  it('lists every task run the crews of earlier steps completed, in order', async () => {
    const { createFlow } = await import('../../src/index.js');
    const llm = createScriptedModel((request) => `${taskLine(request.prompt).slice('Task: '.length)} done`);
    const crewOf = (...names: string[]) =>
      new Crew({
        tasks: names.map(
          (name) => new Task({ name, description: name, agent: new Agent({ role: 'W', llm }) }),
        ),
      });
    const flow = createFlow({ name: 'two-crews', initialState: {} })
      .start('first', async ({ kickoff }) => (await kickoff(crewOf('a', 'b'))).raw)
      .listen('second', 'first', async ({ kickoff, results }) => {
        await kickoff(crewOf('c'));
        return results().map((e) => `${e.task}:${e.raw}`);
      });
    const out = await flow.kickoff();
    expect(out.output).toEqual(['a:a done', 'b:b done', 'c:c done']);
  });
});
