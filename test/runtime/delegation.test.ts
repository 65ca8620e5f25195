import { describe, expect, it } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { z } from 'zod';
import {
  Agent,
  Crew,
  defineTool,
  ExecutionDocument,
  MemoryStore,
  type StatecrewEvent,
  Task,
} from '../../src/index.js';
import { createScriptedModel, type RecordedRequest } from '../../src/models/scripted.js';
import type { ModelResponse } from '../../src/types.js';

/** A model turn that calls one tool. */
const call = (name: string, args: Record<string, unknown>, id = 'c1'): ModelResponse => ({
  text: '',
  toolCalls: [{ id, name, args }],
});

/** The tool results the model was shown in its last request. */
const observations = (request: RecordedRequest | undefined) =>
  (request?.messages ?? []).filter((m) => m.role === 'tool').map((m) => m.content);

describe('delegation between agents', () => {
  it('in a sequential crew: the delegator asks a coworker, whose reply reaches its next model turn', async () => {
    const writerModel = createScriptedModel([
      call('delegate_work', {
        coworker: 'Researcher',
        task: 'Find three facts about otters',
        context: 'for a kids book',
      }),
      (request) => `Article using: ${observations(request).join(' | ')}`,
    ]);
    const researcherModel = createScriptedModel(['Otters hold hands; they use tools; they sleep afloat']);
    const researcher = new Agent({ role: 'Researcher', llm: researcherModel });
    const writer = new Agent({ role: 'Writer', llm: writerModel, allowDelegation: true });
    const crew = new Crew({
      agents: [researcher, writer],
      tasks: [new Task({ name: 'write', description: 'Write about otters', agent: writer })],
    });
    const events: StatecrewEvent[] = [];
    const run = crew.run();
    run.events$.subscribe((e) => events.push(e));
    const out = await run.result;
    expect(out.raw).toBe('Article using: Otters hold hands; they use tools; they sleep afloat');
    // The coworker was asked with its own persona, the task and the context shared.
    expect(researcherModel.calls[0]?.system).toBe('You are Researcher.');
    expect(researcherModel.calls[0]?.messages[0]?.content).toContain('Task: Find three facts about otters');
    expect(researcherModel.calls[0]?.messages[0]?.content).toContain('Context:\nfor a kids book');
    expect(out.delegations).toEqual([
      {
        kind: 'delegate',
        from: 'Writer',
        to: 'Researcher',
        role: 'Researcher',
        task: 'Find three facts about otters',
        nodeId: 'write',
      },
    ]);
    const replied = events.find((e) => e.type === 'delegation.replied');
    expect(replied).toMatchObject({
      from: 'Writer',
      to: 'Researcher',
      reply: expect.stringContaining('Otters'),
    });
    // The coworker's call counts in the node's usage and under its own role.
    const node = out.nodes[0];
    expect(node?.usage.calls).toBe(3);
    expect(out.usage.agents.Researcher?.calls).toBe(1);
    expect(out.usage.agents.Writer?.calls).toBe(2);
    expect(events.filter((e) => e.type === 'model.call').map((e) => (e as { agent?: string }).agent)).toEqual(
      [undefined, 'Researcher', undefined],
    );
  });

  it('a coworker answers a question with its own tools', async () => {
    let searched = '';
    const search = defineTool({
      name: 'search',
      description: 'Search the archive',
      input: z.object({ query: z.string() }),
      execute: ({ query }) => {
        searched = query;
        return `archive says: ${query} is 42`;
      },
    });
    const analystModel = createScriptedModel([
      call('search', { query: 'the answer' }),
      (request) => `It is 42 (${observations(request)[0]})`,
    ]);
    const analyst = new Agent({ role: 'Analyst', llm: analystModel, tools: [search] });
    const leadModel = createScriptedModel([
      call('ask_question', { coworker: 'analyst', question: 'What is the answer?', context: '' }),
      (request) => `Lead: ${observations(request)[0]}`,
    ]);
    const lead = new Agent({ role: 'Lead', llm: leadModel, allowDelegation: true });
    const out = await new Crew({
      agents: [lead, analyst],
      tasks: [new Task({ name: 'decide', description: 'Decide', agent: lead })],
    }).kickoff();
    expect(searched).toBe('the answer');
    expect(out.raw).toBe('Lead: It is 42 (archive says: the answer is 42)');
    // The lead never held the search tool; the analyst never held the delegation tools.
    expect(leadModel.calls[0]?.tools.map((t) => t.name)).toEqual(['delegate_work', 'ask_question']);
    expect(analystModel.calls[0]?.tools.map((t) => t.name)).toEqual(['search']);
    expect(analystModel.calls[0]?.messages[0]?.content).toContain(
      'Answer this question from Lead: What is the answer?',
    );
    expect(out.delegations[0]).toMatchObject({ kind: 'ask', from: 'Lead', to: 'Analyst' });
    // The analyst's tool call is the node's, marked as the analyst's.
    expect(out.nodes[0]?.toolCalls.map((c) => [c.tool, c.agent])).toEqual([
      ['search', 'Analyst'],
      ['ask_question', undefined],
    ]);
  });

  it('in a hierarchical crew: the allocated worker delegates, beside the manager allocations', async () => {
    const editorModel = createScriptedModel(['Tightened.']);
    const writerModel = createScriptedModel([
      call('delegate_work', { coworker: 'Editor', task: 'Tighten this draft', context: 'draft text' }),
      (request) => `Final: ${observations(request)[0]}`,
    ]);
    const writer = new Agent({ role: 'Writer', llm: writerModel, allowDelegation: true });
    const editor = new Agent({ role: 'Editor', llm: editorModel });
    const out = await new Crew({
      agents: [writer, editor],
      tasks: [new Task({ name: 'piece', description: 'Write the piece' })],
      process: 'hierarchical',
      manager: { allocate: () => 'Writer', synthesize: (_goal, outputs) => outputs.join('\n') },
    }).kickoff();
    expect(out.raw).toBe('Final: Tightened.');
    expect(out.delegations).toEqual([
      { kind: 'allocate', task: 'piece', role: 'Writer' },
      {
        kind: 'delegate',
        from: 'Writer',
        to: 'Editor',
        role: 'Editor',
        task: 'Tighten this draft',
        nodeId: 'piece',
      },
    ]);
  });

  it('in a parallel crew: two task runs ask the same coworker at once, and each gets its own reply', async () => {
    let release: () => void = () => {};
    const bothAsked = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked = 0;
    const expertModel = createScriptedModel((request) => async () => {
      asked += 1;
      if (asked === 2) release();
      await bothAsked; // neither reply goes before both questions arrived
      return `answer to ${String(request.messages[0]?.content).match(/question from \w+: (.*)/)?.[1]}`;
    });
    const expert = new Agent({ role: 'Expert', llm: expertModel });
    const asker = (role: string) =>
      new Agent({
        role,
        allowDelegation: true,
        llm: createScriptedModel([
          call('ask_question', { coworker: 'Expert', question: `${role}'s question`, context: '' }),
          (request) => `${role} heard: ${observations(request)[0]}`,
        ]),
      });
    const [a, b] = [asker('A'), asker('B')] as [Agent, Agent];
    const out = await new Crew({
      agents: [a, b, expert],
      process: 'parallel',
      tasks: [
        new Task({ name: 'ta', description: 'a', agent: a }),
        new Task({ name: 'tb', description: 'b', agent: b }),
      ],
    }).kickoff();
    expect(out.nodeResults).toEqual({
      ta: "A heard: answer to A's question",
      tb: "B heard: answer to B's question",
    });
    expect(expertModel.peakInFlight).toBe(2);
    expect(out.usage.agents.Expert?.calls).toBe(2);
    expect(out.nodes.map((n) => [n.nodeId, n.usage.calls]).sort()).toEqual([
      ['ta', 3],
      ['tb', 3],
    ]);
  });

  it("stops the coworker's conversation when the delegating attempt runs out of time", async () => {
    const slowModel = createScriptedModel([() => new Promise<string>(() => {})]);
    const slow = new Agent({ role: 'Slow', llm: slowModel });
    const boss = new Agent({
      role: 'Boss',
      allowDelegation: true,
      llm: createScriptedModel([
        call('delegate_work', { coworker: 'Slow', task: 'Take forever', context: '' }),
      ]),
    });
    const run = new Crew({
      agents: [boss, slow],
      tasks: [new Task({ name: 't', description: 'Hurry', agent: boss, timeoutMs: 30, maxRetries: 0 })],
    }).run();
    let abortedWhenFailed = -1;
    run.events$.subscribe((e) => {
      if (e.type === 'node.failed') abortedWhenFailed = slowModel.aborted.length;
    });
    const out = await run.result;
    expect(out.failures.t?.code).toBe('task_timeout');
    // The coworker's model call was aborted with the attempt, before the task run failed: not left
    // running until the run's end stops every agent.
    expect(abortedWhenFailed).toBe(1);
  });

  it('refuses an unknown coworker with an observation naming the roles, and the model goes on', async () => {
    const model = createScriptedModel([
      call('delegate_work', { coworker: 'Astronaut', task: 'Fly', context: '' }),
      (request) => `gave up: ${observations(request)[0]}`,
    ]);
    const boss = new Agent({ role: 'Boss', llm: model, allowDelegation: true });
    const helper = new Agent({ role: 'Helper', llm: createScriptedModel([]) });
    const out = await new Crew({
      agents: [boss, helper],
      tasks: [new Task({ name: 't', description: 'Do it', agent: boss })],
    }).kickoff();
    expect(out.status).toBe('completed');
    expect(out.raw).toBe(
      'gave up: Error: unknown_coworker: there is no coworker "Astronaut"; the coworkers are: Helper',
    );
    expect(out.nodes[0]?.toolCalls[0]?.code).toBe('unknown_coworker');
    expect(out.delegations).toEqual([]);
  });

  it('refuses a delegation back into the chain (no ping-pong)', async () => {
    // A asks B; B tries to hand the work back to A: refused, and B answers itself.
    const aModel = createScriptedModel([
      call('delegate_work', { coworker: 'B', task: 'Do the thing', context: '' }),
      (request) => `A got: ${observations(request)[0]}`,
    ]);
    const bModel = createScriptedModel([
      call('delegate_work', { coworker: 'A', task: 'No, you do it', context: '' }),
      (request) => `B did it (${observations(request)[0]})`,
    ]);
    const a = new Agent({ role: 'A', llm: aModel, allowDelegation: true });
    const b = new Agent({ role: 'B', llm: bModel, allowDelegation: true });
    const out = await new Crew({
      agents: [a, b],
      tasks: [new Task({ name: 't', description: 'Work', agent: a })],
    }).kickoff();
    expect(out.raw).toMatch(
      /^A got: B did it \(Error: delegation_loop: "A" is already working on this \(A → B → A\)/,
    );
    expect(aModel.calls).toHaveLength(2);
    expect(out.nodes[0]?.toolCalls.map((c) => [c.tool, c.agent, c.code])).toEqual([
      ['delegate_work', 'B', 'delegation_loop'],
      ['delegate_work', undefined, undefined],
    ]);
    expect(out.delegations.map((d) => (d.kind === 'allocate' ? '' : `${d.from}→${d.to}`))).toEqual(['A→B']);
  });

  it('bounds the depth: with maxDelegationDepth 2, A → B → C goes and C → D is refused', async () => {
    const chainModel = (next: string | undefined, me: string) =>
      createScriptedModel([
        ...(next === undefined
          ? []
          : [call('delegate_work', { coworker: next, task: `from ${me}`, context: '' })]),
        (request: import('../../src/types.js').ModelRequest) => `${me}(${observations(request)[0] ?? ''})`,
      ]);
    const agents = ['A', 'B', 'C', 'D'].map(
      (role, i, roles) => new Agent({ role, llm: chainModel(roles[i + 1], role), allowDelegation: true }),
    );
    const crew = (maxDelegationDepth?: number) =>
      new Crew({
        agents,
        tasks: [new Task({ name: 't', description: 'Work', agent: agents[0] as Agent })],
        ...(maxDelegationDepth === undefined ? {} : { maxDelegationDepth }),
      });
    const out = await crew().kickoff();
    expect(out.raw).toMatch(
      /^A\(B\(C\(Error: delegation_depth: this work was already handed over 2 time\(s\), the most this crew allows is 2/,
    );
    expect(out.delegations.map((d) => (d.kind === 'allocate' ? '' : `${d.from}→${d.to}`))).toEqual([
      'A→B',
      'B→C',
    ]);
    expect(out.nodes[0]?.toolCalls.find((c) => c.code !== undefined)).toMatchObject({
      agent: 'C',
      code: 'delegation_depth',
    });
  });

  it('lets maxDelegationDepth 0 refuse every delegation, and rejects a bad value', async () => {
    const model = createScriptedModel([
      call('ask_question', { coworker: 'B', question: 'Q?', context: '' }),
      (request) => observations(request)[0] ?? '',
    ]);
    const a = new Agent({ role: 'A', llm: model, allowDelegation: true });
    const b = new Agent({ role: 'B', llm: createScriptedModel([]) });
    const tasks = [new Task({ name: 't', description: 'Work', agent: a })];
    const out = await new Crew({ agents: [a, b], tasks, maxDelegationDepth: 0 }).kickoff();
    expect(out.raw).toMatch(/^Error: delegation_depth:/);
    expect(() => new Crew({ agents: [a, b], tasks, maxDelegationDepth: -1 })).toThrow(
      /maxDelegationDepth.*invalid_option/,
    );
    expect(() => new Agent({ role: 'X', llm: model, allowDelegation: 'yes' as never })).toThrow(
      /allowDelegation/,
    );
  });

  it('keeps a node’s messages to coworkers, refused ones too, and its usage by agent in its stored result', async () => {
    const writerModel = createScriptedModel([
      call('ask_question', { coworker: 'Astronaut', question: 'Up there?', context: '' }),
      call('delegate_work', { coworker: 'Researcher', task: 'Find a fact', context: 'kids' }, 'c2'),
      'done',
    ]);
    const writer = new Agent({ role: 'Writer', llm: writerModel, allowDelegation: true });
    const researcher = new Agent({ role: 'Researcher', llm: createScriptedModel(['Otters hold hands']) });
    const store = new MemoryStore();
    const out = await new Crew({
      agents: [writer, researcher],
      tasks: [new Task({ name: 'write', description: 'Write', agent: writer })],
      store,
    }).kickoff();
    const doc = await ExecutionDocument.fromStore(store, out.metadata.executionId);
    const [result] = doc?.results ?? [];
    expect(result?.delegations).toEqual([
      {
        kind: 'ask',
        from: 'Writer',
        to: 'Astronaut',
        task: 'Up there?',
        at: expect.any(Number),
        code: 'unknown_coworker',
        error: expect.stringContaining('the coworkers are: Researcher'),
      },
      {
        kind: 'delegate',
        from: 'Writer',
        to: 'Researcher',
        task: 'Find a fact',
        context: 'kids',
        depth: 1,
        at: expect.any(Number),
        durationMs: expect.any(Number),
        reply: 'Otters hold hands',
      },
    ]);
    expect(result?.agentUsage?.Writer?.calls).toBe(3);
    expect(result?.agentUsage?.Researcher?.calls).toBe(1);
  });

  it('shows the messages between agent actors to an inspector: DELEGATE, CONSULT and CONSULT.DONE', async () => {
    const writerModel = createScriptedModel([
      call('ask_question', { coworker: 'Researcher', question: 'Sources?', context: '' }),
      'done',
    ]);
    const writer = new Agent({ role: 'Writer', llm: writerModel, allowDelegation: true });
    const researcher = new Agent({ role: 'Researcher', llm: createScriptedModel(['two sources']) });
    const seen: { type: string; from?: string; to: string }[] = [];
    await new Crew({
      agents: [writer, researcher],
      tasks: [new Task({ name: 't', description: 'Write', agent: writer })],
    }).kickoff({
      inspect: (event: InspectionEvent) => {
        if (event.type !== '@xstate.event' || !event.event.type.match(/^(DELEGATE|CONSULT)/)) return;
        const from = (event.sourceRef as unknown as AnyActorRef | undefined)?.id;
        seen.push({
          type: event.event.type,
          ...(from === undefined ? {} : { from }),
          to: (event.actorRef as unknown as AnyActorRef).id,
        });
      },
    });
    expect(seen).toEqual([
      { type: 'DELEGATE', to: 'Writer' },
      { type: 'CONSULT', from: 'Writer', to: 'Researcher' },
      { type: 'CONSULT.DONE', from: 'Researcher', to: 'Writer' },
    ]);
  });
});

describe('the repeated-call guard', () => {
  it('refuses the same tool with the same arguments a third time in a task run (repeated_call), on every tool', async () => {
    let runs = 0;
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look up',
      input: z.object({ q: z.string(), page: z.number() }),
      execute: () => {
        runs += 1;
        return 'same result';
      },
    });
    const model = createScriptedModel([
      call('lookup', { q: 'x', page: 1 }),
      call('lookup', { page: 1, q: 'x' }), // the same arguments in another key order
      call('lookup', { q: 'x', page: 1 }),
      call('lookup', { q: 'x', page: 2 }), // other arguments still run
      (request) => observations(request).join(' / '),
    ]);
    const agent = new Agent({ role: 'Looker', llm: model, tools: [lookup] });
    const events: StatecrewEvent[] = [];
    const run = new Crew({ tasks: [new Task({ name: 't', description: 'Look', agent })] }).run();
    run.events$.subscribe((e) => events.push(e));
    const out = await run.result;
    expect(runs).toBe(3);
    expect(out.nodes[0]?.toolCalls.map((c) => c.code)).toEqual([
      undefined,
      undefined,
      'repeated_call',
      undefined,
    ]);
    expect(out.raw).toContain(
      'Error: repeated_call: "lookup" was already called 2 times with these arguments',
    );
    const refused = events.filter((e) => e.type === 'tool.call' && e.call.code === 'repeated_call');
    expect(refused).toHaveLength(1);
  });
});

describe('delegation over the OpenAI wire protocol', () => {
  it('runs through a provider tool-call loop: the delegate_work call, the coworker, and the reply as the tool result', async () => {
    const { createOpenAI } = await import('@ai-sdk/openai');
    const { fromAiSdk } = await import('../../src/ai-sdk.js');
    const { startOpenAiServer } = await import('../fixtures/openai-server.js');
    const server = await startOpenAiServer((request) => {
      const system = String(request.messages[0]?.content ?? '');
      const tool = request.messages.find((m) => m.role === 'tool');
      if (system.startsWith('You are Researcher')) return { content: 'Mars has two moons' };
      if (tool === undefined)
        return {
          toolCalls: [
            {
              id: 'call_1',
              name: 'ask_question',
              arguments: {
                coworker: 'Researcher',
                question: 'How many moons has Mars?',
                context: 'astronomy quiz',
              },
            },
          ],
        };
      return { content: `Quiz answer: ${String(tool.content)}` };
    });
    try {
      const llm = fromAiSdk(createOpenAI({ baseURL: server.url, apiKey: 'k' }).chat('gpt-test'));
      const host = new Agent({ role: 'Host', llm, allowDelegation: true });
      const researcher = new Agent({ role: 'Researcher', llm });
      const out = await new Crew({
        agents: [host, researcher],
        tasks: [new Task({ name: 'quiz', description: 'Answer the quiz', agent: host })],
      }).kickoff();
      expect(out.raw).toBe('Quiz answer: Mars has two moons');
      // The delegator's request offered the two tools with their JSON Schemas.
      const offered = server.requests[0]?.tools?.map((t) => t.function.name);
      expect(offered).toEqual(['delegate_work', 'ask_question']);
      // The coworker was asked on the wire with its own persona and the question.
      const asked = server.requests[1];
      expect(asked?.messages[0]?.content).toBe('You are Researcher.');
      expect(String(asked?.messages[1]?.content)).toContain('How many moons has Mars?');
      expect(out.delegations).toMatchObject([
        { kind: 'ask', from: 'Host', to: 'Researcher', nodeId: 'quiz' },
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('delegation and approvals together', () => {
  it("pauses when a coworker's tool waits for approval inside a delegation, and goes on from there in a fresh crew object", async () => {
    const { MemoryStore } = await import('../../src/index.js');
    const store = new MemoryStore();
    const wired: number[] = [];
    const wire = defineTool({
      name: 'wire',
      description: 'Wire money',
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: ({ amount }) => {
        wired.push(amount);
        return `wired ${amount}`;
      },
    });
    /** Builds the crew as another process would: fresh agents and models. */
    const build = () => {
      const treasurerModel = createScriptedModel((request) =>
        observations(request as RecordedRequest).length === 0
          ? call('wire', { amount: 900 }, 'w1')
          : `Treasurer: ${observations(request as RecordedRequest)[0]}`,
      );
      const managerModel = createScriptedModel((request) =>
        observations(request as RecordedRequest).length === 0
          ? call('delegate_work', { coworker: 'Treasurer', task: 'Pay the supplier 900', context: '' }, 'd1')
          : `Manager: ${observations(request as RecordedRequest)[0]}`,
      );
      const manager = new Agent({ role: 'Manager', llm: managerModel, allowDelegation: true });
      const treasurer = new Agent({ role: 'Treasurer', llm: treasurerModel, tools: [wire] });
      const crew = new Crew({
        name: 'payments',
        store,
        agents: [manager, treasurer],
        tasks: [new Task({ name: 'pay', description: 'Pay the supplier', agent: manager })],
      });
      return { crew, managerModel, treasurerModel };
    };
    const first = build();
    const paused = await first.crew.kickoff({ executionId: 'pay-1' });
    expect(paused.status).toBe('paused');
    expect(wired).toEqual([]);
    // The waiting call is the coworker's, under the delegating call's id.
    expect(paused.pending).toEqual([
      {
        kind: 'approval',
        nodeId: 'pay',
        tool: 'wire',
        args: { amount: 900 },
        callId: 'pay.1.1.0/Treasurer.1.0',
        agent: 'Treasurer',
      },
    ]);
    const second = build();
    const out = await second.crew.resume('pay-1', {
      approvals: { 'pay.1.1.0/Treasurer.1.0': { approve: true } },
    });
    expect(out.status).toBe('completed');
    expect(wired).toEqual([900]);
    expect(out.raw).toBe('Manager: Treasurer: wired 900');
    // Neither model was asked again for the turns before the pause.
    expect(second.managerModel.calls).toHaveLength(1);
    expect(second.treasurerModel.calls).toHaveLength(1);
  });
});

describe('delegation without coworkers', () => {
  it('grants an agent alone in its crew no delegation tools, and its model hears nothing of coworkers', async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks a word up',
      input: z.object({ word: z.string() }),
      execute: ({ word }) => word,
    });
    const soloModel = createScriptedModel(() => 'done');
    const solo = new Agent({ role: 'Solo', llm: soloModel, allowDelegation: true, tools: [lookup] });
    const out = await new Crew({
      agents: [solo],
      tasks: [
        new Task({ name: 'one', description: 'Do one thing', agent: solo }),
        new Task({ name: 'two', description: 'Do another', agent: solo }),
      ],
    }).kickoff();
    expect(out.status).toBe('completed');
    for (const request of soloModel.calls) {
      expect(request.tools.map((t) => t.name)).toEqual(['lookup']);
      expect(JSON.stringify(request)).not.toMatch(/coworker|delegate/i);
    }
    expect(soloModel.calls).toHaveLength(2);
  });
});
