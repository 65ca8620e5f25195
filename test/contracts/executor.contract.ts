import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  type AgentRegistry,
  type ConversationExecutor,
  Crew,
  defineTool,
  MemoryStore,
  StatecrewError,
  Task,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { taskLine } from '../helpers.js';

/** What the contract needs of one executor: one made for a registry, and its teardown. */
export interface ExecutorHarness {
  /** An executor whose workers hold `registry`'s agents and tools; undefined: the crew's default. */
  open(registry: AgentRegistry): Promise<ConversationExecutor | undefined>;
  /** The worker name a node run by this executor records (undefined for the default, which runs here). */
  worker?: string | RegExp;
  close(): Promise<void>;
}

const lookup = defineTool({
  name: 'lookup',
  description: 'Look a term up',
  input: z.object({ term: z.string() }),
  execute: ({ term }) => `facts about ${term}`,
});

/** A researcher who looks a term up before answering, a writer, and an editor with a schema. */
function team() {
  let flaky = 0;
  const llm = createScriptedModel((request) => {
    const task = taskLine(request.prompt).slice('Task: '.length);
    if (task === 'research AI' && !request.messages.some((m) => m.role === 'tool')) {
      return {
        text: '',
        toolCalls: [{ id: 'c1', name: 'lookup', args: { term: 'AI' } }],
        usage: { inputTokens: 4, outputTokens: 2 },
      };
    }
    if (task === 'draft it' && flaky++ === 0)
      throw new StatecrewError('store_unavailable', 'a flaky provider');
    if (task.startsWith('edit'))
      return { text: '{"title":"AI"}', usage: { inputTokens: 3, outputTokens: 1 } };
    return {
      text: `${request.agent}: ${task} <${request.context}>`,
      usage: { inputTokens: 5, outputTokens: 5 },
    };
  });
  const researcher = new Agent({ role: 'Researcher', llm, tools: [lookup], retryDelayMs: 0 });
  const writer = new Agent({ role: 'Writer', llm, retryDelayMs: 0 });
  const tasks = [
    new Task({ name: 'research', description: 'research AI', agent: researcher }),
    new Task({ name: 'draft', description: 'draft it', agent: writer }),
    new Task({
      name: 'edit',
      description: 'edit it',
      agent: writer,
      outputSchema: z.object({ title: z.string() }),
    }),
  ];
  return { llm, researcher, writer, tasks, registry: { agents: [researcher, writer], tools: [lookup] } };
}

/** The behaviour every executor shares: a crew's result does not depend on where its agents ran. */
export function executorContract(name: string, harness: ExecutorHarness): void {
  describe(`${name}: the executor contract`, () => {
    it('gives the same result as in-process: tools, a retried failure, structured output, usage', async () => {
      const local = team();
      const expected = await new Crew({ tasks: local.tasks }).kickoff({ executionId: 'contract' });
      const { tasks, registry } = team();
      const executor = await harness.open(registry);
      try {
        const out = await new Crew({ tasks, executor }).kickoff({ executionId: 'contract' });
        expect(out.status).toBe('completed');
        expect(out.tasksOutput).toEqual(expected.tasksOutput);
        expect(out.usage).toEqual(expected.usage);
        expect(out.nodes.map((n) => [n.nodeId, n.attempts, n.toolCalls, n.usage])).toEqual(
          expected.nodes.map((n) => [n.nodeId, n.attempts, n.toolCalls, n.usage]),
        );
        expect(out.outputOf(tasks[2] as Task)?.structured).toEqual({ title: 'AI' });
        for (const node of out.nodes) {
          if (harness.worker === undefined) expect(node.worker).toBeUndefined();
          else expect(node.worker).toMatch(harness.worker);
        }
      } finally {
        await harness.close();
      }
    });

    it('pauses a tool call for approval where the conversation runs, and goes on from it once approved', async () => {
      const ran: string[] = [];
      const publish = defineTool({
        name: 'publish',
        description: 'Publish a post',
        input: z.object({ title: z.string() }),
        needsApproval: true,
        execute: ({ title }) => {
          ran.push(title);
          return `published ${title}`;
        },
      });
      const llm = createScriptedModel((request) => {
        const said = request.messages.flatMap((m) => (m.role === 'tool' ? [m.content] : []));
        if (said.length > 0) return `done: ${said.join(' | ')}`;
        return { text: '', toolCalls: [{ id: 'p1', name: 'publish', args: { title: 'AI' } }] };
      });
      const editor = new Agent({ role: 'Editor', llm, tools: [publish] });
      const tasks = [new Task({ name: 'ship', description: 'ship it', agent: editor })];
      const executor = await harness.open({ agents: [editor], tools: [publish] });
      try {
        const crew = new Crew({ tasks, executor, store: new MemoryStore() });
        const out = await crew.kickoff({ executionId: 'approval' });
        expect(out.pending).toEqual([
          {
            kind: 'approval',
            nodeId: 'ship',
            tool: 'publish',
            args: { title: 'AI' },
            callId: 'ship.1.1.0',
            agent: 'Editor',
          },
        ]);
        expect(ran).toEqual([]);
        const done = await crew.resume('approval', { approvals: { 'ship.1.1.0': { approve: true } } });
        expect(ran).toEqual(['AI']);
        expect(done.status).toBe('completed');
        expect(done.tasksOutput[0]?.raw).toBe('done: published AI');
        expect(done.nodes[0]?.usage.calls).toBe(2);
      } finally {
        await harness.close();
      }
    });

    // Only workers can lack an agent: in-process, every agent is at hand.
    if (harness.worker === undefined) return;
    it('fails a task whose agent its workers do not hold with unknown_agent, not retried', async () => {
      const { tasks, researcher } = team();
      const executor = await harness.open({ agents: [researcher], tools: [lookup] });
      try {
        const out = await new Crew({ tasks, executor }).kickoff();
        expect(out.failures.draft).toMatchObject({ code: 'unknown_agent', retryable: false });
        expect(out.nodes.find((n) => n.nodeId === 'draft')?.attempts).toBe(1);
        expect(out.metadata.blocked).toEqual(['edit']);
      } finally {
        await harness.close();
      }
    });
  });
}
