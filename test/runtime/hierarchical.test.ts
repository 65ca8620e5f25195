import { describe, expect, it } from 'vitest';
import { Agent, Crew, type ManagerFunctions, Task, UnknownWorkerError } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { agent, echoModel } from '../helpers.js';

function workers() {
  const llm = echoModel();
  return {
    llm,
    researcher: agent('Researcher', llm),
    writer: agent('Writer', llm),
    editor: agent('Editor', llm),
  };
}

/** A manager that routes by the first word of the description and records what it was asked. */
function routingManager() {
  const asked: { description: string; roles: string[]; context: string }[] = [];
  const synthesized: { goal: string; outputs: string[] }[] = [];
  const manager: ManagerFunctions = {
    allocate(description, roles, context) {
      asked.push({ description, roles, context });
      const first = description.split(' ')[0] ?? '';
      return { Research: 'Researcher', Write: 'Writer', Edit: 'Editor' }[first] ?? first;
    },
    synthesize(goal, outputs) {
      synthesized.push({ goal, outputs });
      return `${goal} <= ${outputs.join(' | ')}`;
    },
  };
  return { manager, asked, synthesized };
}

const tasks = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      new Task({ name: `t${i + 1}`, description: `${['Research', 'Write', 'Edit'][i % 3]} part ${i + 1}` }),
  );

describe('hierarchical process', () => {
  it('allocates each task in order, runs it on the chosen worker with the accumulated context, then synthesizes', async () => {
    const { llm, researcher, writer, editor } = workers();
    const { manager, asked, synthesized } = routingManager();
    const crew = new Crew({
      agents: [researcher, writer, editor],
      tasks: tasks(3),
      process: 'hierarchical',
      manager,
      goal: 'Report on {topic}',
    });
    const out = await crew.kickoff({ inputs: { topic: 'AI' } });
    expect(out.delegations).toEqual([
      { kind: 'allocate', task: 't1', role: 'Researcher' },
      { kind: 'allocate', task: 't2', role: 'Writer' },
      { kind: 'allocate', task: 't3', role: 'Editor' },
    ]);
    expect(llm.calls.map((c) => c.agent)).toEqual(['Researcher', 'Writer', 'Editor']);
    expect(llm.calls.map((c) => c.context)).toEqual([
      '',
      'Researcher: Research part 1',
      'Researcher: Research part 1\nWriter: Write part 2',
    ]);
    expect(asked.map((a) => a.roles)).toEqual([
      ['Researcher', 'Writer', 'Editor'],
      ['Researcher', 'Writer', 'Editor'],
      ['Researcher', 'Writer', 'Editor'],
    ]);
    expect(asked[2]?.context).toBe('Researcher: Research part 1\nWriter: Write part 2');
    expect(synthesized).toEqual([
      {
        goal: 'Report on AI',
        outputs: ['Researcher: Research part 1', 'Writer: Write part 2', 'Editor: Edit part 3'],
      },
    ]);
    expect(out.raw).toBe(
      'Report on AI <= Researcher: Research part 1 | Writer: Write part 2 | Editor: Edit part 3',
    );
    expect(out.output).toBe(out.raw);
    expect(out.nodes.map((n) => n.agent)).toEqual(['Researcher', 'Writer', 'Editor']);
  });

  it.each([1, 5])('makes exactly tasks + 1 manager calls for %i task(s)', async (n) => {
    const { researcher, writer, editor } = workers();
    const { manager, asked, synthesized } = routingManager();
    const out = await new Crew({
      agents: [researcher, writer, editor],
      tasks: tasks(n),
      process: 'hierarchical',
      manager,
    }).kickoff();
    expect(out.managerCalls).toBe(n + 1);
    expect(asked.length + synthesized.length).toBe(n + 1);
    expect(out.delegations).toHaveLength(n);
  });

  it('rejects the run when the manager names a role no worker holds, naming it and the known roles', async () => {
    const { llm, researcher, writer } = workers();
    const manager: ManagerFunctions = { allocate: () => 'Designer', synthesize: () => 'never' };
    const crew = new Crew({
      agents: [researcher, writer],
      tasks: tasks(2),
      process: 'hierarchical',
      manager,
    });
    const error = await crew.kickoff().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownWorkerError);
    expect(error).toMatchObject({
      code: 'unknown_worker',
      details: { role: 'Designer', knownRoles: ['Researcher', 'Writer'] },
    });
    expect((error as Error).message).toContain('"Designer"');
    expect((error as Error).message).toContain('"Researcher", "Writer"');
    expect(llm.calls).toHaveLength(0);
  });

  it('throws from the constructor when two workers share a role', () => {
    const llm = echoModel();
    const { manager } = routingManager();
    expect(
      () =>
        new Crew({
          agents: [agent('Writer', llm), agent('Writer', llm)],
          tasks: tasks(1),
          process: 'hierarchical',
          manager,
        }),
    ).toThrow(
      expect.objectContaining({
        code: 'duplicate_role',
        message: 'Role "Writer" is held by more than one agent (duplicate_role)',
      }),
    );
  });

  it('throws from the constructor when the manager agent is also one of the agents, naming its role', () => {
    const { researcher, writer } = workers();
    const lead = new Agent({ role: 'Lead', llm: createScriptedModel(() => 'Lead') });
    const made = (options: { agents?: Agent[]; tasks: Task[] }) => () =>
      new Crew({ ...options, process: 'hierarchical', manager: lead });
    const refused = expect.objectContaining({
      code: 'invalid_option',
      message: expect.stringContaining('the manager agent "Lead" is also among the crew\'s agents'),
      details: expect.objectContaining({ option: 'agents' }),
    });
    expect(made({ agents: [researcher, lead, writer], tasks: tasks(2) })).toThrow(refused);
    // Without `agents`, the tasks' agents are the workers: the manager is refused among them too.
    const own = [new Task({ description: 'Research it', agent: lead })];
    expect(made({ tasks: own })).toThrow(refused);
    // Another agent with the manager's role is a worker of its own.
    const namesake = agent('Lead', echoModel());
    expect(made({ agents: [researcher, namesake], tasks: tasks(1) })).not.toThrow();
  });

  it('throws from the constructor without a manager', () => {
    const { researcher } = workers();
    expect(() => new Crew({ agents: [researcher], tasks: tasks(1), process: 'hierarchical' })).toThrow(
      expect.objectContaining({ code: 'missing_manager' }),
    );
  });

  it('lets a manager agent choose by model, parsed strictly against the roles', async () => {
    const { llm, researcher, writer } = workers();
    const managerModel = createScriptedModel(['  Writer \n', 'Researcher', 'All done: two parts']);
    const boss = new Agent({ role: 'Manager', goal: 'deliver', llm: managerModel });
    const out = await new Crew({
      agents: [researcher, writer],
      tasks: tasks(2),
      process: 'hierarchical',
      manager: boss,
    }).kickoff();
    expect(out.delegations).toEqual([
      { kind: 'allocate', task: 't1', role: 'Writer' },
      { kind: 'allocate', task: 't2', role: 'Researcher' },
    ]);
    expect(managerModel.calls[0]?.prompt).toContain('Workers: Researcher, Writer');
    expect(managerModel.calls[2]?.context).toBe('Writer: Research part 1\nResearcher: Write part 2');
    expect(out.raw).toBe('All done: two parts');
    expect(out.managerCalls).toBe(3);
    expect(out.usage.calls).toBe(llm.calls.length + managerModel.calls.length);

    const chatty = new Agent({ role: 'Manager', llm: createScriptedModel(['I pick the Writer.']) });
    await expect(
      new Crew({
        agents: [researcher, writer],
        tasks: tasks(1),
        process: 'hierarchical',
        manager: chatty,
      }).kickoff(),
    ).rejects.toMatchObject({ code: 'unknown_worker', details: { role: 'I pick the Writer.' } });
  });

  it('skips synthesis and blocks the rest when a worker fails for good', async () => {
    const failing = createScriptedModel(() => new Error('model down'));
    const researcher = new Agent({ role: 'Researcher', llm: failing, maxRetries: 0 });
    const { writer, editor } = workers();
    const { manager, synthesized } = routingManager();
    const out = await new Crew({
      agents: [researcher, writer, editor],
      tasks: tasks(3),
      process: 'hierarchical',
      manager,
    }).kickoff();
    expect(out.status).toBe('failed');
    expect(out.metadata.blocked).toEqual(['t2', 't3']);
    expect(synthesized).toHaveLength(0);
    expect(out.managerCalls).toBe(1);
    expect(out.errors).toEqual({ t1: 'model down' });
  });
});
