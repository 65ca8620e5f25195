/**
 * CrewAI's lib/crewai/tests/test_crew.py at commit f4731f5025f861c78e3af0487cc80bf5e7c64782 (see
 * `CREWAI_COMMIT`): its tests that need no recorded model (`@pytest.mark.vcr`), one case each, in
 * CrewAI's order.
 *
 * How CrewAI's constructs map to statecrew's:
 * - `Crew(agents, tasks, process)`, `Agent(role, goal, backstory)`, `Task(description,
 *   expected_output, agent, context, async_execution, output_file)` → `new Crew`, `new Agent`,
 *   `new Task` with the same options in camelCase. CrewAI's agents have a default model; statecrew's
 *   take one: each agent here gets a scripted model (`createScriptedModel`).
 * - `patch.object(Agent, 'execute_task')` / `patch.object(Task, 'execute_sync')` → a scripted model
 *   answering what the patch returned.
 * - `Crew(config=json)` → `loadCrew({ agents, tasks })`: JSON is YAML, entries keyed by name (a task's
 *   `agent` names its agent's key instead of its role).
 * - `kickoff_async` → `kickoff` (a promise already) and `kickoff` → `run(options).result`;
 *   `kickoff_for_each` and `kickoff_for_each_async` → `kickoffForEach`.
 * - `crew.usage_metrics` (`total_tokens`, `prompt_tokens`, `completion_tokens`, `successful_requests`)
 *   → `out.usage` (`totalTokens`, `inputTokens`, `outputTokens`, `calls`).
 * - A `pydantic.ValidationError` or `ValueError` at construction → a thrown `StatecrewError` with a code.
 * - Callbacks (`task_callback`, `step_callback`) and CrewAI's event bus → the run's `events$`.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, vi } from 'vitest';
import {
  Agent,
  type AgentOptions,
  Crew,
  type CrewOptions,
  type CrewOutput,
  type CrewRun,
  createFlow,
  ExecutionDocument,
  isStatecrewError,
  type LoadCrewOptions,
  loadCrew,
  MemoryStore,
  type StatecrewEvent,
  Task,
  type TaskOptions,
} from '../../../src/index.js';
import { createScriptedModel, type ScriptedModel } from '../../../src/testing.js';
import { difference, peer } from './peer.js';

const RESEARCHER = {
  role: 'Researcher',
  goal: 'Make the best research and analysis on content about AI and AI agents',
  backstory:
    "You're an expert researcher, specialized in technology, software engineering, AI and startups. You work as a freelancer and is now working on doing research and analysis for a new customer.",
  allowDelegation: false,
};

const WRITER = {
  role: 'Senior Writer',
  goal: 'Write the best content about AI and AI agents.',
  backstory:
    "You're a senior writer, specialized in technology, software engineering, AI and startups. You work as a freelancer and are now working on writing content for a new customer.",
  allowDelegation: false,
};

const LIST_IDEAS =
  'Give me a list of 5 interesting ideas to explore for na article, what makes them unique and interesting.';
const IDEAS_WITH_PARAGRAPHS =
  'Come up with a list of 5 interesting ideas to explore for an article, then write one amazing paragraph highlight for each idea that showcases how good an article about this topic could be. Return the list of ideas with their paragraph and your notes.';

/** Folders the cases made, removed once they ran. */
const madeDirs: string[] = [];
afterAll(() => {
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
});

/** A new empty folder under the system's temporary folder, removed after the cases. */
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/** A model answering `ok` to every call (CrewAI's `execute_task` patched to return "ok"). */
const answersOk = (): ScriptedModel => createScriptedModel(() => 'ok');

/** CrewAI's `researcher` fixture, with a model. */
const researcherAgent = (llm: Agent['llm'] = answersOk()) => new Agent({ ...RESEARCHER, llm });
/** CrewAI's `writer` fixture, with a model. */
const writerAgent = (llm: Agent['llm'] = answersOk()) => new Agent({ ...WRITER, llm });

/** The `{topic}` agent and task several CrewAI tests share. */
function topicCrewParts(llm: Agent['llm'] = answersOk(), maxRetries?: number) {
  const agent = new Agent({
    role: '{topic} Researcher',
    goal: 'Express hot takes on {topic}.',
    backstory: 'You have a lot of experience with {topic}.',
    llm,
    ...(maxRetries === undefined ? {} : { maxRetries }),
  });
  const task = new Task({
    description: 'Give me an analysis around {topic}.',
    expectedOutput: "1 bullet point about {topic} that's under 15 words.",
    agent,
  });
  return { agent, task };
}

/** Options with keys CrewAI has and statecrew's types do not: passed as given, for statecrew to judge. */
function withKeys<T>(options: T, crewaiKeys: Record<string, unknown>): T {
  return { ...options, ...crewaiKeys } as T;
}

/** A CrewAI `ConditionalTask`: statecrew's `Task` with CrewAI's `condition` option. */
function conditionalTask(options: TaskOptions, condition: (output: unknown) => boolean): Task {
  return new Task(withKeys(options, { condition }));
}

/** Calls `build` and returns what it threw (undefined when it threw nothing). */
function thrownBy(build: () => unknown): unknown {
  try {
    build();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** What a promise rejected with (undefined when it resolved). */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Asserts `error` is a `StatecrewError` (with `code`, when given); `what` names what was refused. */
function expectRefusal(error: unknown, code?: string, what = 'the call'): void {
  expect(isStatecrewError(error), `${what}: expected a StatecrewError, got ${String(error)}`).toBe(true);
  if (code !== undefined) expect((error as { code: string }).code).toBe(code);
}

/** Runs `crew` and collects its events. */
async function runWithEvents(
  crew: Crew,
  options: Parameters<Crew['run']>[0] = {},
): Promise<{ out: CrewOutput; events: StatecrewEvent[] }> {
  const run = crew.run(options);
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((event) => events.push(event));
  return { out: await run.result, events };
}

/** A scripted model that answers by the task line of the prompt: `answers[<description>]`. */
function answersByTask(answers: Record<string, string>): ScriptedModel {
  return createScriptedModel((request) => {
    const line = request.prompt.split('\n').find((l) => l.startsWith('Task: ')) ?? '';
    const answer = answers[line.slice('Task: '.length)];
    return answer ?? new Error(`no answer scripted for ${line}`);
  });
}

describe('test_crew.py', () => {
  difference(
    'test_crew.py::test_crew_with_only_conditional_tasks_raises_error',
    () => {
      const researcher = researcherAgent();
      const condition = () => true;
      const conditional = (n: number) =>
        conditionalTask(
          { description: `Conditional task ${n}`, expectedOutput: `Output ${n}`, agent: researcher },
          condition,
        );
      const error = thrownBy(
        () => new Crew({ agents: [researcher], tasks: [conditional(1), conditional(2), conditional(3)] }),
      );
      expect(String(error)).toMatch(/Crew must include at least one non-conditional task/);
    },
    () => {
      // statecrew has no conditional task: `condition` is refused by name.
      const error = thrownBy(() =>
        conditionalTask({ description: 'Conditional task 1', agent: researcherAgent() }, () => true),
      );
      expectRefusal(error, 'invalid_option');
    },
  );

  peer('test_crew.py::test_crew_config_conditional_requirement', () => {
    expectRefusal(thrownBy(() => new Crew(withKeys({} as CrewOptions, { process: 'sequential' }))));

    // CrewAI's `config` lists agents and tasks, a task naming its agent by role; loadCrew keys each
    // entry by name, and a task names its agent's key.
    const agents = {
      senior_researcher: {
        role: 'Senior Researcher',
        goal: RESEARCHER.goal,
        backstory: RESEARCHER.backstory,
      },
      senior_writer: { role: 'Senior Writer', goal: WRITER.goal, backstory: WRITER.backstory },
    };
    const tasks = {
      ideas: {
        description: LIST_IDEAS,
        expected_output: 'Bullet point list of 5 important events.',
        agent: 'senior_researcher',
      },
      article: {
        description:
          "Write a 1 amazing paragraph highlight for each idea that showcases how good an article about this topic could be, check references if necessary or search for more content but make sure it's unique, interesting and well written. Return the list of ideas with their paragraph and your notes.",
        expected_output: 'A 4 paragraph article about AI.',
        agent: 'senior_writer',
      },
    };
    const crew = loadCrew({
      process: 'sequential',
      agents: JSON.stringify(agents),
      tasks: JSON.stringify(tasks),
      llm: answersOk(),
    });
    expect(crew.agents.map((agent) => agent.role)).toEqual(Object.values(agents).map((a) => a.role));
    expect(crew.tasks.map((task) => task.description)).toEqual(
      Object.values(tasks).map((t) => t.description),
    );
  });

  peer('test_crew.py::test_async_task_cannot_include_sequential_async_tasks_in_context', () => {
    const researcher = researcherAgent();
    const writer = writerAgent();
    const task1 = new Task({
      description: 'Task 1',
      asyncExecution: true,
      expectedOutput: 'output',
      agent: researcher,
    });
    const task2 = new Task({
      description: 'Task 2',
      asyncExecution: true,
      expectedOutput: 'output',
      agent: researcher,
      context: [task1],
    });
    const task3 = new Task({
      description: 'Task 3',
      asyncExecution: true,
      expectedOutput: 'output',
      agent: researcher,
      context: [task2],
    });
    const task4 = new Task({ description: 'Task 4', expectedOutput: 'output', agent: writer });
    const task5 = new Task({
      description: 'Task 5',
      asyncExecution: true,
      expectedOutput: 'output',
      agent: researcher,
      context: [task4],
    });

    // Task 2 is asynchronous and reads task 1, an asynchronous task it runs beside. CrewAI names a
    // task by its description; statecrew by its node id (`task-2`: the second in the list).
    const error = thrownBy(
      () => new Crew({ tasks: [task1, task2, task3, task4, task5], agents: [researcher, writer] }),
    );
    expectRefusal(error, 'invalid_option');
    expect(String(error)).toMatch(/"task-2" is asynchronous/);

    // task5 reads task4, which is not asynchronous.
    expect(
      thrownBy(() => new Crew({ tasks: [task1, task4, task5], agents: [researcher, writer] })),
    ).toBeUndefined();
  });

  peer('test_crew.py::test_context_no_future_tasks', () => {
    const researcher = researcherAgent();
    const writer = writerAgent();
    const task2 = new Task({ description: 'Task 2', expectedOutput: 'output', agent: researcher });
    const task3 = new Task({
      description: 'Task 3',
      expectedOutput: 'output',
      agent: researcher,
      context: [task2],
    });
    const task4 = new Task({ description: 'Task 4', expectedOutput: 'output', agent: researcher });
    const task1 = new Task({
      description: 'Task 1',
      expectedOutput: 'output',
      agent: researcher,
      context: [task4],
    });

    // task1 (first in the list: `task-1`) reads task4 (`task-4`), which runs later.
    const error = thrownBy(
      () => new Crew({ tasks: [task1, task2, task3, task4], agents: [researcher, writer] }),
    );
    expectRefusal(error, 'context_forward_reference');
    expect(String(error)).toMatch(/"task-1".*"task-4"/);
  });

  peer('test_crew.py::test_crew_config_with_wrong_keys', () => {
    const llm = answersOk();
    const noTasksConfig = {
      agents: JSON.stringify({
        senior_researcher: {
          role: 'Senior Researcher',
          goal: RESEARCHER.goal,
          backstory: RESEARCHER.backstory,
        },
      }),
    };
    const noAgentsConfig = {
      tasks: JSON.stringify({ ideas: { description: LIST_IDEAS, agent: 'senior_researcher' } }),
    };
    // A config's top-level keys are loadCrew's `agents` and `tasks`.
    const load = (config: Record<string, unknown>) =>
      thrownBy(() => loadCrew({ process: 'sequential', llm, ...config } as unknown as LoadCrewOptions));
    expectRefusal(load({ wrong_key: 'wrong_value' }));
    expectRefusal(load(noTasksConfig));
    expectRefusal(load(noAgentsConfig));
  });

  peer('test_crew.py::test_manager_llm_requirement_for_hierarchical_process', () => {
    const task = new Task({
      description: IDEAS_WITH_PARAGRAPHS,
      expectedOutput: '5 bullet points with a paragraph for each idea.',
    });
    const error = thrownBy(
      () => new Crew({ agents: [researcherAgent(), writerAgent()], process: 'hierarchical', tasks: [task] }),
    );
    expectRefusal(error, 'missing_manager');
  });

  peer('test_crew.py::test_agents_rpm_is_never_set_if_crew_max_rpm_is_not_set', () => {
    // CrewAI's `verbose` (agent and crew) has no statecrew counterpart and no bearing on the rate limit.
    const agent = new Agent({
      role: 'test role',
      goal: 'test goal',
      backstory: 'test backstory',
      allowDelegation: false,
      llm: answersOk(),
    });
    const task = new Task({ description: 'just say hi!', expectedOutput: 'your greeting', agent });
    new Crew({ agents: [agent], tasks: [task] });
    expect(agent.maxRpm).toBeUndefined();
  });

  peer('test_crew.py::test_mixed_sync_async_task_outputs_not_dropped', async () => {
    const llm = answersByTask({ sync1: 's1', async1: 'a1', sync2: 's2' });
    const researcher = researcherAgent(llm);
    const writer = writerAgent(llm);
    const sync1 = new Task({ description: 'sync1', expectedOutput: 'x', agent: researcher });
    const async1 = new Task({
      description: 'async1',
      expectedOutput: 'x',
      agent: researcher,
      asyncExecution: true,
    });
    const sync2 = new Task({ description: 'sync2', expectedOutput: 'x', agent: writer });
    const crew = new Crew({ agents: [researcher, writer], tasks: [sync1, async1, sync2] });

    const result = await crew.kickoff();
    expect(result.tasksOutput.map((o) => o.raw)).toEqual(['s1', 'a1', 's2']);
  });

  peer('test_crew.py::test_mixed_sync_async_task_outputs_not_dropped_native_async', async () => {
    // CrewAI's `akickoff` (native asyncio) → the run's result, awaited.
    const llm = answersByTask({ sync1: 's1', async1: 'a1', sync2: 's2' });
    const researcher = researcherAgent(llm);
    const writer = writerAgent(llm);
    const sync1 = new Task({ description: 'sync1', expectedOutput: 'x', agent: researcher });
    const async1 = new Task({
      description: 'async1',
      expectedOutput: 'x',
      agent: researcher,
      asyncExecution: true,
    });
    const sync2 = new Task({ description: 'sync2', expectedOutput: 'x', agent: writer });
    const crew = new Crew({ agents: [researcher, writer], tasks: [sync1, async1, sync2] });

    const result = await crew.run().result;
    expect(result.tasksOutput.map((o) => o.raw)).toEqual(['s1', 'a1', 's2']);
  });

  difference(
    'test_crew.py::test_pending_async_outputs_preserved_through_conditional_task',
    async () => {
      const llm = answersByTask({ sync1: 's1', async1: 'a1' });
      const researcher = researcherAgent(llm);
      const writer = writerAgent(llm);
      const sync1 = new Task({ description: 'sync1', expectedOutput: 'x', agent: researcher });
      const async1 = new Task({
        description: 'async1',
        expectedOutput: 'x',
        agent: researcher,
        asyncExecution: true,
      });
      const conditional = conditionalTask(
        { description: 'conditional', expectedOutput: 'x', agent: writer },
        () => false,
      );
      const crew = new Crew({ agents: [researcher, writer], tasks: [sync1, async1, conditional] });
      const result = await crew.kickoff();
      const raws = result.tasksOutput.map((o) => o.raw);
      expect(raws.slice(0, 2)).toEqual(['s1', 'a1']);
      expect(result.tasksOutput).toHaveLength(3);
    },
    async () => {
      // What runs after a pending asynchronous task is decided by the process, never by an output:
      // the task after it waits for it, and both outputs are kept.
      const llm = answersByTask({ sync1: 's1', async1: 'a1', after: 'c1' });
      const researcher = researcherAgent(llm);
      const writer = writerAgent(llm);
      const tasks = [
        new Task({ description: 'sync1', expectedOutput: 'x', agent: researcher }),
        new Task({ description: 'async1', expectedOutput: 'x', agent: researcher, asyncExecution: true }),
        new Task({ description: 'after', expectedOutput: 'x', agent: writer }),
      ];
      const result = await new Crew({ agents: [researcher, writer], tasks }).kickoff();
      expect(result.tasksOutput.map((o) => o.raw)).toEqual(['s1', 'a1', 'c1']);
    },
  );

  difference(
    'test_crew.py::test_kickoff_for_each_error_handling',
    async () => {
      const inputs = [{ topic: 'dog' }, { topic: 'cat' }, { topic: 'apple' }];
      const expectedOutputs = [
        'Dogs are loyal companions and popular pets.',
        'Cats are independent and low-maintenance pets.',
      ];
      // CrewAI patches kickoff to fail on the third input; here the third run's model call fails.
      const llm = createScriptedModel((request) =>
        request.prompt.includes('apple')
          ? new Error('Simulated kickoff error')
          : (expectedOutputs[request.prompt.includes('dog') ? 0 : 1] as string),
      );
      // No retries: a failed call fails its run at once (CrewAI's patched kickoff has none either).
      const { agent, task } = topicCrewParts(llm, 0);
      const crew = new Crew({ agents: [agent], tasks: [task] });
      const error = await rejectionOf(crew.kickoffForEach(inputs));
      expect(String(error)).toMatch(/Simulated kickoff error/);
    },
    async () => {
      const llm = createScriptedModel((request) =>
        request.prompt.includes('apple') ? new Error('Simulated kickoff error') : 'a hot take',
      );
      const { task } = topicCrewParts(llm, 0);
      const results = await new Crew({ tasks: [task] }).kickoffForEach([
        { topic: 'dog' },
        { topic: 'cat' },
        { topic: 'apple' },
      ]);
      // Every run settles in its place: the failed one resolves `failed` and stops none of the others.
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      const outputs = results.map((r) => (r as PromiseFulfilledResult<CrewOutput>).value);
      expect(outputs.map((o) => o.status)).toEqual(['completed', 'completed', 'failed']);
      expect(Object.values(outputs[2]?.errors ?? {})).toEqual(['Simulated kickoff error']);
    },
  );

  peer('test_crew.py::test_kickoff_async_basic_functionality_and_output', async () => {
    const inputs = { topic: 'dog' };
    const { agent, task } = topicCrewParts();
    const crew = new Crew({ agents: [agent], tasks: [task] });

    // CrewAI's kickoff_async hands its inputs to kickoff and returns what it returns; statecrew's
    // kickoff (a promise already) hands its options to run and returns the run's result.
    const expectedOutput = 'This is a sample output from kickoff.';
    const run = vi
      .spyOn(crew, 'run')
      .mockReturnValue({ result: Promise.resolve(expectedOutput) } as unknown as CrewRun);
    const result: unknown = await crew.kickoff({ inputs });
    expect(typeof result).toBe('string');
    expect(result).toBe(expectedOutput);
    expect(run).toHaveBeenCalledTimes(1);
    expect(run).toHaveBeenCalledWith({ inputs });
  });

  difference(
    'test_crew.py::test_async_kickoff_for_each_async_basic_functionality_and_output',
    async () => {
      const { crew, inputs, expectedOutputs, run } = kickoffForEachFixture();
      const results: unknown[] = await crew.kickoffForEach(inputs);
      expect(results).toHaveLength(inputs.length);
      expect(results).toEqual(expectedOutputs);
      for (const input of inputs)
        expect(run).toHaveBeenCalledWith(expect.objectContaining({ inputs: input }));
    },
    async () => {
      const { crew, inputs, expectedOutputs, run } = kickoffForEachFixture();
      const results = await crew.kickoffForEach(inputs);
      // Each entry is the run's settled result: its output when it was fulfilled.
      expect(results).toEqual(expectedOutputs.map((value) => ({ status: 'fulfilled', value })));
      for (const input of inputs)
        expect(run).toHaveBeenCalledWith(expect.objectContaining({ inputs: input }));
    },
  );

  peer('test_crew.py::test_async_kickoff_for_each_async_empty_input', async () => {
    const { agent, task } = topicCrewParts();
    const crew = new Crew({ agents: [agent], tasks: [task] });
    const results = await crew.kickoffForEach([]);
    expect(results).toEqual([]);
  });

  difference(
    'test_crew.py::test_set_agents_step_callback',
    async () => {
      const researcher = researcherAgent();
      const listIdeas = new Task({
        description: LIST_IDEAS,
        expectedOutput: 'Bullet point list of 5 important events.',
        agent: researcher,
        asyncExecution: true,
      });
      const crew = new Crew(
        withKeys(
          { agents: [researcher], process: 'sequential', tasks: [listIdeas] },
          { stepCallback: () => {} },
        ),
      );
      await crew.kickoff();
      expect((researcher as unknown as { stepCallback?: unknown }).stepCallback).toBeDefined();
    },
    async () => {
      // Every step of an agent (each model call, each tool call) is an event of the run.
      const researcher = researcherAgent();
      const listIdeas = new Task({ description: LIST_IDEAS, agent: researcher, asyncExecution: true });
      const { events } = await runWithEvents(new Crew({ tasks: [listIdeas] }));
      expect(events.filter((e) => e.type === 'model.call').map((e) => 'nodeId' in e && e.nodeId)).toEqual([
        'task-1',
      ]);
    },
  );

  difference(
    'test_crew.py::test_dont_set_agents_step_callback_if_already_set',
    async () => {
      const agentCallback = () => {};
      const crewCallback = () => {};
      const researcher = new Agent(
        withKeys<AgentOptions>({ ...RESEARCHER, llm: answersOk() }, { stepCallback: agentCallback }),
      );
      const listIdeas = new Task({
        description: LIST_IDEAS,
        expectedOutput: 'Bullet point list of 5 important events.',
        agent: researcher,
        asyncExecution: true,
      });
      const crew = new Crew(
        withKeys(
          { agents: [researcher], process: 'sequential', tasks: [listIdeas] },
          { stepCallback: crewCallback },
        ),
      );
      await crew.kickoff();
      const stepCallback = (researcher as unknown as { stepCallback?: unknown }).stepCallback;
      expect(stepCallback).not.toBe(crewCallback);
      expect(stepCallback).toBe(agentCallback);
    },
    () => {
      expectRefusal(
        thrownBy(
          () =>
            new Agent(
              withKeys<AgentOptions>({ ...RESEARCHER, llm: answersOk() }, { stepCallback: () => {} }),
            ),
        ),
        'invalid_option',
      );
    },
  );

  difference(
    'test_crew.py::test_code_execution_flag_adds_code_tool_upon_kickoff',
    async () => {
      const llm = createScriptedModel(() => 'mocked output');
      const programmer = new Agent(
        withKeys<AgentOptions>(
          {
            role: 'Programmer',
            goal: 'Write code to solve problems.',
            backstory: "You're a programmer who loves to solve problems with code.",
            allowDelegation: false,
            llm,
          },
          { allowCodeExecution: true },
        ),
      );
      const task = new Task({
        description: 'How much is 2 + 2?',
        expectedOutput: 'The result of the sum as an integer.',
        agent: programmer,
      });
      await new Crew({ agents: [programmer], tasks: [task] }).kickoff();
      const usedTools = llm.calls.at(-1)?.tools ?? [];
      expect(usedTools).toHaveLength(0);
    },
    async () => {
      // Without the flag CrewAI has no longer any use for, the agent's model is offered no tool.
      const llm = createScriptedModel(() => 'mocked output');
      const programmer = new Agent({ role: 'Programmer', goal: 'Write code to solve problems.', llm });
      const task = new Task({ description: 'How much is 2 + 2?', agent: programmer });
      await new Crew({ tasks: [task] }).kickoff();
      expect(llm.calls.at(-1)?.tools).toEqual([]);
    },
  );

  peer('test_crew.py::test_hierarchical_kickoff_usage_metrics_include_manager', async () => {
    // CrewAI mocks each agent's usage summary; here each scripted reply reports its usage.
    const researcherMetrics = { totalTokens: 120, inputTokens: 80, outputTokens: 40, calls: 1 };
    const managerMetrics = { totalTokens: 30, inputTokens: 20, outputTokens: 10, calls: 2 };
    const researcher = researcherAgent(
      createScriptedModel([{ text: 'Hello', usage: { inputTokens: 80, outputTokens: 40 } }]),
    );
    const manager = new Agent({
      role: 'Manager',
      goal: 'Coordinate everything.',
      backstory: 'Keeps the project on track.',
      allowDelegation: false,
      // The manager is asked twice: to allocate the task, then to synthesize.
      llm: createScriptedModel([
        { text: 'Researcher', usage: { inputTokens: 12, outputTokens: 4 } },
        { text: 'Hello', usage: { inputTokens: 8, outputTokens: 6 } },
      ]),
    });
    const task = new Task({ description: 'Say hello', expectedOutput: 'Hello', agent: researcher });
    const crew = new Crew({ agents: [researcher], manager, tasks: [task], process: 'hierarchical' });

    const { usage } = await crew.kickoff();
    expect(usage.totalTokens).toBe(researcherMetrics.totalTokens + managerMetrics.totalTokens);
    expect(usage.inputTokens).toBe(researcherMetrics.inputTokens + managerMetrics.inputTokens);
    expect(usage.outputTokens).toBe(researcherMetrics.outputTokens + managerMetrics.outputTokens);
    expect(usage.calls).toBe(researcherMetrics.calls + managerMetrics.calls);
  });

  difference(
    'test_crew.py::test_crew_inputs_interpolate_both_agents_and_tasks',
    async () => {
      const { agent, task } = topicCrewParts();
      const points = new Task({
        description: task.description,
        expectedOutput: '{points} bullet points about {topic}.',
        agent,
      });
      const crew = new Crew({ agents: [agent], tasks: [points] });
      // CrewAI's `_interpolate_inputs` (called by kickoff) fills the crew's own tasks and agents.
      await crew.kickoff({ inputs: { topic: 'AI', points: 5 } });
      expect(crew.tasks[0]?.description).toBe('Give me an analysis around AI.');
      expect(crew.tasks[0]?.expectedOutput).toBe('5 bullet points about AI.');
      expect(crew.agents[0]?.role).toBe('AI Researcher');
      expect(crew.agents[0]?.goal).toBe('Express hot takes on AI.');
      expect(crew.agents[0]?.backstory).toBe('You have a lot of experience with AI.');
    },
    async () => {
      const llm = answersOk();
      const { agent } = topicCrewParts(llm);
      const task = new Task({
        description: 'Give me an analysis around {topic}.',
        expectedOutput: '{points} bullet points about {topic}.',
        agent,
      });
      const crew = new Crew({ agents: [agent], tasks: [task] });
      await crew.kickoff({ inputs: { topic: 'AI', points: 5 } });
      // The run was asked the filled texts …
      const [request] = llm.calls;
      expect(request?.system).toBe(
        'You are AI Researcher. Your goal: Express hot takes on AI.. Backstory: You have a lot of experience with AI..',
      );
      expect(request?.prompt).toContain(
        'Task: Give me an analysis around AI.\nExpected output: 5 bullet points about AI.',
      );
      // … and the crew's definitions keep their placeholders for the next run.
      expect(crew.tasks[0]?.description).toBe('Give me an analysis around {topic}.');
      expect(crew.agents[0]?.role).toBe('{topic} Researcher');
      expect(crew.agents[0]?.withInputs({ topic: 'AI' }).role).toBe('AI Researcher');
    },
  );

  peer('test_crew.py::test_crew_inputs_interpolate_both_agents_and_tasks_diff', async () => {
    const llm = answersOk();
    const { agent } = topicCrewParts(llm);
    const task = new Task({
      description: 'Give me an analysis around {topic}.',
      expectedOutput: '{points} bullet points about {topic}.',
      agent,
    });
    const crew = new Crew({ agents: [agent], tasks: [task] });
    // CrewAI checks that kickoff interpolates the agent and the task; here, what the model was asked.
    const interpolateAgentInputs = vi.spyOn(agent, 'withInputs');
    await crew.kickoff({ inputs: { topic: 'AI', points: 5 } });
    expect(interpolateAgentInputs).toHaveBeenCalled();
    const [request] = llm.calls;
    expect(request?.system).toContain('You are AI Researcher.');
    expect(request?.prompt).toContain(
      'Task: Give me an analysis around AI.\nExpected output: 5 bullet points about AI.',
    );
  });

  for (const [name, onTask, onCrew] of [
    ['test_crew.py::test_task_callback_on_crew', false, true],
    ['test_crew.py::test_task_callback_both_on_task_and_crew', true, true],
    ['test_crew.py::test_task_same_callback_both_on_task_and_crew', true, true],
  ] as const) {
    difference(
      name,
      async () => {
        const onTaskCallback = vi.fn();
        const sameCallback = name.endsWith('same_callback_both_on_task_and_crew');
        const onCrewCallback = sameCallback ? onTaskCallback : vi.fn();
        const researcher = researcherAgent();
        const listIdeas = new Task(
          withKeys(
            {
              description: LIST_IDEAS,
              expectedOutput: 'Bullet point list of 5 important events.',
              agent: researcher,
              asyncExecution: true,
            },
            onTask ? { callback: onTaskCallback } : {},
          ),
        );
        const crew = new Crew(
          withKeys(
            { agents: [researcher], process: 'sequential', tasks: [listIdeas] },
            onCrew ? { taskCallback: onCrewCallback } : {},
          ),
        );
        await crew.kickoff();
        expect((listIdeas as unknown as { callback?: unknown }).callback).toBeDefined();
        expect(onCrewCallback).toHaveBeenCalledTimes(1);
        if (onTask) expect(onTaskCallback).toHaveBeenCalledTimes(1);
      },
      async () => {
        // A completed task is a `node.completed` event of the run, with its output, once.
        const listIdeas = new Task({
          description: LIST_IDEAS,
          agent: researcherAgent(),
          asyncExecution: true,
        });
        const { out, events } = await runWithEvents(new Crew({ tasks: [listIdeas] }));
        const completed = events.filter((e) => e.type === 'node.completed');
        expect(completed).toHaveLength(1);
        expect(completed[0]?.type === 'node.completed' && completed[0].output).toEqual(out.tasksOutput[0]);
        expect(out.tasksOutput[0]?.raw).toBe('ok');
      },
    );
  }

  peer('test_crew.py::test_crew_output_file_validation_failures', async () => {
    const baseDir = tempDir('output-file-');
    const agent = new Agent({
      role: 'Researcher',
      goal: 'Analyze data',
      backstory: 'You analyze data files.',
      allowDelegation: false,
      llm: answersOk(),
    });
    const kickoffWith = async (outputFile: string) => {
      const task = new Task({
        description: 'Analyze data',
        expectedOutput: 'Analysis results',
        agent,
        outputFile,
      });
      return new Crew({ agents: [agent], tasks: [task], baseDir }).kickoff();
    };
    // CrewAI's messages: "Path traversal", "Shell special characters", "Shell expansion", "Invalid
    // template variable"; statecrew refuses each with `output_file_failed`.
    for (const outputFile of [
      '../output.txt',
      'output.txt | rm -rf /',
      '~/output.txt',
      '{invalid-name}/output.txt',
    ]) {
      expectRefusal(
        await rejectionOf(kickoffWith(outputFile)),
        'output_file_failed',
        `outputFile "${outputFile}"`,
      );
    }
  });

  peer('test_crew.py::test_manager_agent_in_agents_raises_exception', () => {
    const task = new Task({
      description: IDEAS_WITH_PARAGRAPHS,
      expectedOutput: '5 bullet points with a paragraph for each idea.',
    });
    const manager = new Agent({
      role: 'Manager',
      goal: 'Manage the crew and ensure the tasks are completed efficiently.',
      backstory:
        "You're an experienced manager, skilled in overseeing complex projects and guiding teams to success. Your role is to coordinate the efforts of the crew members, ensuring that each task is completed on time and to the highest standard.",
      allowDelegation: false,
      llm: answersOk(),
    });
    const error = thrownBy(
      () =>
        new Crew({
          agents: [researcherAgent(), writerAgent(), manager],
          process: 'hierarchical',
          manager,
          tasks: [task],
        }),
    );
    expectRefusal(error);
  });

  for (const name of ['test_crew.py::test_key', 'test_crew.py::test_key_with_interpolated_inputs'] as const) {
    const interpolated = name.endsWith('with_interpolated_inputs');
    difference(
      name,
      async () => {
        const { researcher, writer, tasks } = keyFixture(interpolated);
        const crew = new Crew({ agents: [researcher, writer], process: 'sequential', tasks });
        const key = (of: object) => (of as { key?: string }).key;
        const hash = createHash('md5')
          .update(`${key(researcher)}|${key(writer)}|${key(tasks[0] as Task)}|${key(tasks[1] as Task)}`)
          .digest('hex');
        expect(key(crew)).toBe(hash);
        if (interpolated) {
          const currKey = key(crew);
          await crew.kickoff({ inputs: { topic: 'AI' } });
          expect(key(crew)).toBe(currKey);
        }
      },
      async () => {
        // A task is known by its node id (its name, else its position), which no input changes.
        const { researcher, writer, tasks } = keyFixture(interpolated);
        const crew = new Crew({ agents: [researcher, writer], tasks });
        const ids = tasks.map((task) => crew.nodeIdOf(task));
        expect(ids).toEqual(['task-1', 'task-2']);
        const out = await crew.kickoff({ inputs: { topic: 'AI' } });
        expect(tasks.map((task) => crew.nodeIdOf(task))).toEqual(ids);
        expect(out.tasksOutput.map((o) => o.name)).toEqual(ids);
      },
    );
  }

  difference(
    'test_crew.py::test_conditional_task_requirement_breaks_when_singular_conditional_task',
    () => {
      const task = conditionalTask(
        {
          description: IDEAS_WITH_PARAGRAPHS,
          expectedOutput: '5 bullet points with a paragraph for each idea.',
        },
        (output) => String((output as { raw: string }).raw).startsWith('Andrew Ng has!!'),
      );
      const error = thrownBy(() => new Crew({ agents: [researcherAgent(), writerAgent()], tasks: [task] }));
      // CrewAI: a crew of one conditional task is refused for being only conditional.
      expect(String(error)).toMatch(/non-conditional task/);
    },
    () => {
      expectRefusal(
        thrownBy(() => conditionalTask({ description: IDEAS_WITH_PARAGRAPHS }, () => true)),
        'invalid_option',
      );
    },
  );

  difference(
    'test_crew.py::test_conditional_task_requirement_breaks_when_task_async',
    () => {
      const researcher = researcherAgent();
      const writer = writerAgent();
      const task = conditionalTask(
        withKeys(
          {
            description: IDEAS_WITH_PARAGRAPHS,
            expectedOutput: '5 bullet points with a paragraph for each idea.',
            agent: researcher,
          },
          { executeAsync: true },
        ),
        (context) => Number((context as Record<string, unknown>).some_value) > 10,
      );
      const task2 = new Task({ description: 'Say Hi', expectedOutput: 'Hi', agent: writer });
      const error = thrownBy(() => new Crew({ agents: [researcher, writer], tasks: [task, task2] }));
      // CrewAI: a conditional task may not run asynchronously.
      expect(String(error)).toMatch(/conditional/i);
    },
    () => {
      expectRefusal(
        thrownBy(() => conditionalTask({ description: 'Say Hi', agent: researcherAgent() }, () => true)),
        'invalid_option',
      );
    },
  );

  for (const verbose of [true, false]) {
    difference(
      verbose
        ? 'test_crew.py::test_hierarchical_verbose_manager_agent'
        : 'test_crew.py::test_hierarchical_verbose_false_manager_agent',
      async () => {
        const task = new Task({
          description: IDEAS_WITH_PARAGRAPHS,
          expectedOutput: '5 bullet points with a paragraph for each idea.',
        });
        const crew = new Crew(
          withKeys(
            { agents: [researcherAgent(), writerAgent()], tasks: [task], process: 'hierarchical' },
            { managerLlm: 'gpt-4o', verbose },
          ),
        );
        await crew.kickoff();
        const manager = crew.manager as unknown as { verbose?: boolean } | undefined;
        expect(manager).toBeDefined();
        expect(manager?.verbose).toBe(verbose);
      },
      async () => {
        // The manager is an Agent given whole (or two functions); what it does is in the run's events.
        const task = new Task({ description: IDEAS_WITH_PARAGRAPHS });
        const manager = new Agent({
          role: 'Crew Manager',
          llm: createScriptedModel((request) =>
            request.prompt.includes('Choose the worker') ? 'Researcher' : 'mocked output',
          ),
        });
        const crew = new Crew({
          agents: [researcherAgent(), writerAgent()],
          tasks: [task],
          process: 'hierarchical',
          manager,
        });
        const { out, events } = await runWithEvents(crew);
        expect(crew.manager).toBe(manager);
        expect(events.filter((e) => e.type === 'manager.call').map((e) => 'phase' in e && e.phase)).toEqual([
          'allocate',
          'synthesize',
        ]);
        expect(out.raw).toBe('mocked output');
      },
    );
  }

  peer('test_crew.py::test_fetch_inputs', async () => {
    const llm = answersOk();
    const agent = new Agent({
      role: '{role_detail} Researcher',
      goal: 'Research on {topic}.',
      backstory: 'Expert in {field}.',
      llm,
    });
    const task = new Task({
      description: 'Analyze the data on {topic}.',
      expectedOutput: 'Summary of {topic} analysis.',
      agent,
    });
    const crew = new Crew({ agents: [agent], tasks: [task] });

    // statecrew has no fetch_inputs(): a strict kickoff without inputs names every placeholder the
    // crew needs (`details.missingInputs`) before any model call.
    const expectedPlaceholders = new Set(['role_detail', 'topic', 'field']);
    const error = await rejectionOf(crew.kickoff({ strictInputs: true }));
    expectRefusal(error, 'missing_input');
    const missing = (error as { details: { missingInputs: { name: string }[] } }).details.missingInputs;
    expect(new Set(missing.map((input) => input.name))).toEqual(expectedPlaceholders);
    expect(llm.calls).toHaveLength(0);
  });

  difference(
    'test_crew.py::test_crew_kickoff_for_each_works_with_manager_agent_copy',
    () => {
      const { crew } = managerCopyFixture();
      const copy = (crew as unknown as { copy?: () => Crew }).copy;
      expect(copy, 'Crew.copy').toBeTypeOf('function');
      const crewCopy = copy?.call(crew) as Crew;
      const managerOf = (c: Crew) => c.manager as unknown as { id: string; role: string; goal: string };
      expect(crewCopy.manager).toBeDefined();
      expect(managerOf(crewCopy).id).not.toBe(managerOf(crew).id);
      expect(managerOf(crewCopy).role).toBe(managerOf(crew).role);
      expect(managerOf(crewCopy).goal).toBe(managerOf(crew).goal);
    },
    async () => {
      // No copy is needed: each run of kickoffForEach is a run of its own, the manager a definition.
      const { crew, manager } = managerCopyFixture();
      const results = await crew.kickoffForEach([{}, {}]);
      const outputs = results.map((r) => (r as PromiseFulfilledResult<CrewOutput>).value);
      expect(outputs.map((o) => o.status)).toEqual(['completed', 'completed']);
      expect(outputs.map((o) => o.managerCalls)).toEqual([2, 2]);
      expect(new Set(outputs.map((o) => o.metadata.executionId)).size).toBe(2);
      expect(crew.manager).toBe(manager);
    },
  );

  peer('test_crew.py::test_sets_flow_context_when_using_crewbase_pattern_inside_flow', async () => {
    // CrewAI's @CrewBase class → a crew made in the step. A crew is a definition in statecrew: the
    // run the step kicks off is the one bound to the flow run, under the step, its events the flow's.
    const makeCrew = () => {
      const researcher = new Agent({
        role: 'Researcher',
        goal: 'Research things',
        backstory: 'Expert researcher',
        llm: answersOk(),
      });
      const writer = new Agent({
        role: 'Writer',
        goal: 'Write things',
        backstory: 'Expert writer',
        llm: answersOk(),
      });
      return new Crew({
        agents: [researcher, writer],
        tasks: [
          new Task({ description: 'Test task for researcher', expectedOutput: 'output', agent: researcher }),
          new Task({ description: 'Test task for writer', expectedOutput: 'output', agent: writer }),
        ],
        process: 'sequential',
      });
    };
    let capturedCrewRun: string | undefined;
    const flow = createFlow({ name: 'my_flow', initialState: {} }).start(
      'start_method',
      async ({ kickoff }) => {
        const out = await kickoff(makeCrew());
        capturedCrewRun = out.metadata.executionId;
        return out.raw;
      },
    );
    const run = flow.run();
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((event) => events.push(event));
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(capturedCrewRun).toBeDefined();
    const crewStarted = events.find((e) => e.type === 'run.started' && e.runId === capturedCrewRun);
    expect(crewStarted?.step).toBe('start_method');
    const stepStarted = events.find((e) => e.type === 'node.started' && e.step === 'start_method');
    expect(stepStarted?.runId).toBe(out.id);
  });

  peer('test_crew.py::test_sets_flow_context_when_outside_flow', async () => {
    const researcher = researcherAgent();
    const writer = writerAgent();
    const crew = new Crew({
      agents: [researcher, writer],
      process: 'sequential',
      tasks: [
        new Task({ description: 'Task 1', expectedOutput: 'output', agent: researcher }),
        new Task({ description: 'Task 2', expectedOutput: 'output', agent: writer }),
      ],
    });
    // Outside a flow, no event of the run belongs to a flow step.
    const { events } = await runWithEvents(crew);
    expect(events.length).toBeGreaterThan(0);
    expect(events.filter((e) => e.step !== undefined)).toEqual([]);
  });

  difference(
    'test_crew.py::test_reset_knowledge_with_no_crew_knowledge',
    () => {
      const crew = twoTaskCrew();
      expect(crew, 'Crew.resetMemories').toHaveProperty('resetMemories');
    },
    () => expectNoKnowledge(),
  );

  difference(
    'test_crew.py::test_reset_memory_uses_full_unified_memory_reset',
    () => {
      const crew = new Crew({
        agents: [researcherAgent()],
        process: 'sequential',
        tasks: [new Task({ description: 'Task 1', expectedOutput: 'output', agent: researcherAgent() })],
        memory: true,
      });
      expect(crew, 'Crew.resetMemories').toHaveProperty('resetMemories');
    },
    async () => {
      // A run's memory is the run's own: the next run starts with none, so there is nothing to reset.
      const writer = new Agent({
        role: 'Writer',
        llm: createScriptedModel(['first run fact', 'second run fact']),
      });
      const reader = new Agent({
        role: 'Reader',
        memory: true,
        llm: createScriptedModel((request) => {
          const last = request.messages.at(-1);
          return last?.role === 'tool'
            ? `seen: ${last.content}`
            : { text: '', toolCalls: [{ id: 'r', name: 'results', args: { last: 5 } }] };
        }),
      });
      const crew = new Crew({
        tasks: [
          new Task({ name: 'write', description: 'Write a fact', agent: writer }),
          new Task({ name: 'recall', description: 'Recall the facts', agent: reader }),
        ],
        memory: true,
      });
      expect((await crew.kickoff()).raw).toContain('first run fact');
      const second = await crew.kickoff();
      expect(second.raw).toContain('second run fact');
      expect(second.raw).not.toContain('first run fact');
    },
  );

  difference(
    'test_crew.py::test_kickoff_drains_pending_memory_saves_before_completion_event',
    async () => {
      const order: string[] = [];
      const crew = new Crew(
        withKeys(
          {
            agents: [researcherAgent()],
            process: 'sequential',
            tasks: [new Task({ description: 'Task 1', expectedOutput: 'output', agent: researcherAgent() })],
            memory: true,
          },
          { taskCallback: () => order.push('save-done') },
        ),
      );
      const { events } = await runWithEvents(crew);
      if (events.some((e) => e.type === 'run.completed')) order.push('kickoff-completed');
      expect(order.indexOf('save-done')).toBeLessThan(order.indexOf('kickoff-completed'));
    },
    () => expectSavedBeforeCompleted({ crewMemory: true }),
  );

  difference(
    'test_crew.py::test_kickoff_drains_agent_memory_saves_before_completion_event',
    async () => {
      const agentMemory = { storage: join(tmpdir(), 'agent-mem') };
      const agentWithMemory = new Agent({
        role: 'Researcher',
        goal: 'Research things',
        backstory: 'Experienced researcher',
        llm: answersOk(),
        memory: agentMemory as unknown as boolean,
      });
      const order: string[] = [];
      const crew = new Crew(
        withKeys(
          {
            agents: [agentWithMemory],
            process: 'sequential',
            tasks: [new Task({ description: 'Task 1', expectedOutput: 'output', agent: agentWithMemory })],
          },
          { taskCallback: () => order.push('save-done') },
        ),
      );
      const { events } = await runWithEvents(crew);
      if (events.some((e) => e.type === 'run.completed')) order.push('kickoff-completed');
      expect(order.indexOf('save-done')).toBeLessThan(order.indexOf('kickoff-completed'));
    },
    () => expectSavedBeforeCompleted({ crewMemory: false }),
  );

  for (const [name, crewKnowledge, agentKnowledge] of [
    ['test_crew.py::test_reset_knowledge_with_only_crew_knowledge', true, false],
    ['test_crew.py::test_reset_knowledge_with_crew_and_agent_knowledge', true, true],
    ['test_crew.py::test_reset_knowledge_with_only_agent_knowledge', false, true],
    ['test_crew.py::test_reset_agent_knowledge_with_no_agent_knowledge', false, false],
    ['test_crew.py::test_reset_agent_knowledge_with_only_crew_knowledge', true, false],
    ['test_crew.py::test_reset_agent_knowledge_with_crew_and_agent_knowledge', true, true],
    ['test_crew.py::test_reset_agent_knowledge_with_only_agent_knowledge', false, true],
  ] as const) {
    difference(
      name,
      () => {
        // CrewAI's `knowledge` sources (crew and agent) and `reset_memories(command_type=...)`.
        const knowledge = { sources: [] };
        const agentOptions = (options: AgentOptions) =>
          agentKnowledge ? withKeys(options, { knowledge }) : options;
        const researcher = new Agent(agentOptions({ ...RESEARCHER, llm: answersOk() }));
        const writer = new Agent(agentOptions({ ...WRITER, llm: answersOk() }));
        const crew = new Crew(
          withKeys(
            {
              agents: [researcher, writer],
              process: 'sequential',
              tasks: [
                new Task({ description: 'Task 1', expectedOutput: 'output', agent: researcher }),
                new Task({ description: 'Task 2', expectedOutput: 'output', agent: writer }),
              ],
            },
            crewKnowledge ? { knowledge } : {},
          ),
        );
        expect(crew, 'Crew.resetMemories').toHaveProperty('resetMemories');
      },
      () => expectNoKnowledge(),
    );
  }

  peer('test_crew.py::test_default_crew_name', () => {
    const crew = twoTaskCrew();
    expect(crew.name).toBe('crew');
  });

  peer('test_crew.py::test_crew_kickoff_started_emits_display_name', async () => {
    // Both of CrewAI's parameters: the `@CrewBase` class's name when the crew has none (a loaded
    // project's folder name here), else the crew's name. `CrewKickoffStartedEvent.crew_name` → `name`
    // on the run's first event, `run.started`.
    for (const [explicitName, expected] of [
      [undefined, 'ResearchAutomation'],
      ['My Research Automation', 'My Research Automation'],
    ] as const) {
      const crew = researchAutomation(explicitName);
      const { events } = await runWithEvents(crew);
      const captured = events
        .filter((e) => e.type === 'run.started')
        .map((e) => (e as { name?: string }).name);
      expect(captured).toEqual([expected]);
    }
  });

  difference(
    'test_crew.py::test_prepare_kickoff_binds_task_only_agent_to_crew',
    async () => {
      const taskOnlyAgent = new Agent({
        role: 'Solo',
        goal: 'Describe inputs',
        backstory: 'Solo agent assigned only via task.agent',
        allowDelegation: false,
        llm: answersOk(),
      });
      const task = new Task({
        description: 'Describe the input.',
        expectedOutput: 'A description.',
        agent: taskOnlyAgent,
      });
      const crew = new Crew({ tasks: [task] });
      const crewOf = (agent: Agent) => (agent as unknown as { crew?: Crew }).crew ?? null;
      expect(crewOf(taskOnlyAgent)).toBeNull();
      expect(crew.agents).toEqual([]);
      await crew.kickoff();
      expect(crewOf(taskOnlyAgent)).toBe(crew);
    },
    async () => {
      const llm = answersOk();
      const taskOnlyAgent = new Agent({ role: 'Solo', goal: 'Describe inputs', llm });
      const task = new Task({ description: 'Describe the input.', agent: taskOnlyAgent });
      const crew = new Crew({ tasks: [task] });
      // A crew without `agents` has its tasks' agents from the start; the agent is not tied to it.
      expect(crew.agents).toEqual([taskOnlyAgent]);
      const out = await crew.kickoff();
      expect(out.tasksOutput[0]?.agent).toBe('Solo');
      expect((taskOnlyAgent as unknown as { crew?: Crew }).crew).toBeUndefined();
    },
  );
});

/** The crew, inputs and outputs of CrewAI's kickoff_for_each_async test; `run` mocked per input. */
function kickoffForEachFixture() {
  const inputs = [{ topic: 'dog' }, { topic: 'cat' }, { topic: 'apple' }];
  const expectedOutputs = [
    'Dogs are loyal companions and popular pets.',
    'Cats are independent and low-maintenance pets.',
    'Apples are a rich source of dietary fiber and vitamin C.',
  ];
  const { agent, task } = topicCrewParts();
  const crew = new Crew({ agents: [agent], tasks: [task] });
  // CrewAI mocks kickoff_async; statecrew's kickoffForEach starts each run with `run`.
  const run = vi.spyOn(crew, 'run').mockImplementation((options = {}) => {
    const topic = String(options.inputs?.topic);
    const output = expectedOutputs[inputs.findIndex((input) => input.topic === topic)];
    return { result: Promise.resolve(output) } as unknown as CrewRun;
  });
  return { crew, inputs, expectedOutputs, run };
}

/** The agents and tasks of CrewAI's `test_key` (with `{topic}` placeholders when `interpolated`). */
function keyFixture(interpolated: boolean) {
  const llm = answersOk();
  const topic = interpolated ? ' {topic}' : '';
  const researcher = new Agent({ ...RESEARCHER, role: `${topic} Researcher`.trim(), llm });
  const writer = new Agent({ ...WRITER, role: `${topic} Senior Writer`.trim(), llm });
  const tasks = [
    new Task({
      description: interpolated
        ? 'Give me a list of 5 interesting ideas about {topic} to explore for an article, what makes them unique and interesting.'
        : LIST_IDEAS,
      expectedOutput: 'Bullet point list of 5 important events.',
      agent: researcher,
    }),
    new Task({
      description: `Write a 1 amazing paragraph highlight for each idea${interpolated ? ' of {topic}' : ''} that showcases how good an article about this topic could be. Return the list of ideas with their paragraph and your notes.`,
      expectedOutput: 'A 4 paragraph article about AI.',
      agent: writer,
    }),
  ];
  return { researcher, writer, tasks };
}

/** CrewAI's crew of a researcher and a writer, one task each. */
function twoTaskCrew(): Crew {
  const researcher = researcherAgent();
  const writer = writerAgent();
  return new Crew({
    agents: [researcher, writer],
    process: 'sequential',
    tasks: [
      new Task({ description: 'Task 1', expectedOutput: 'output', agent: researcher }),
      new Task({ description: 'Task 2', expectedOutput: 'output', agent: writer }),
    ],
  });
}

/** statecrew has no knowledge sources: `knowledge` is refused on a crew and on an agent. */
function expectNoKnowledge(): void {
  const knowledge = { sources: [] };
  expectRefusal(
    thrownBy(() => new Agent(withKeys<AgentOptions>({ ...RESEARCHER, llm: answersOk() }, { knowledge }))),
    'invalid_option',
  );
  const task = new Task({ description: 'Task 1', agent: researcherAgent() });
  expectRefusal(
    thrownBy(() => new Crew(withKeys<CrewOptions>({ tasks: [task] }, { knowledge }))),
    'invalid_option',
  );
}

/**
 * What a run keeps is written before it says it completed: with a store, each task's result is in
 * the store when `run.completed` is emitted (and the memory it feeds, the crew's or an agent's, is
 * read from that record).
 */
async function expectSavedBeforeCompleted({ crewMemory }: { crewMemory: boolean }): Promise<void> {
  const store = new MemoryStore();
  const agent = new Agent({ role: 'Researcher', llm: answersOk(), memory: !crewMemory });
  const crew = new Crew({
    tasks: [new Task({ name: 'task_1', description: 'Task 1', agent })],
    ...(crewMemory ? { memory: true } : {}),
    store,
  });
  const run = crew.run();
  let storedAtCompletion: Promise<unknown> | undefined;
  run.events$.subscribe((event) => {
    if (event.type === 'run.completed') storedAtCompletion = ExecutionDocument.fromStore(store, run.id);
  });
  await run.result;
  const document = (await storedAtCompletion) as ExecutionDocument | undefined;
  expect(document?.results.map((r) => [r.nodeId, r.raw])).toEqual([['task_1', 'ok']]);
}

/** CrewAI's `ResearchAutomation` crew class: its YAML in a project folder of that name. */
function researchAutomation(explicitName: string | undefined): Crew {
  const project = join(tempDir('crew-name-'), 'ResearchAutomation');
  mkdirSync(join(project, 'config'), { recursive: true });
  writeFileSync(
    join(project, 'config', 'agents.yaml'),
    `researcher:\n  role: Researcher\n  goal: ${RESEARCHER.goal}\n`,
  );
  writeFileSync(
    join(project, 'config', 'tasks.yaml'),
    'first_task:\n  description: Task 1\n  expected_output: output\n  agent: researcher\n',
  );
  return loadCrew({
    agents: join(project, 'config', 'agents.yaml'),
    tasks: join(project, 'config', 'tasks.yaml'),
    llm: answersOk(),
    ...(explicitName === undefined ? {} : { name: explicitName }),
  });
}

/** CrewAI's crew with a manager agent, for the copy test. */
function managerCopyFixture() {
  const researcher = new Agent({
    role: 'Researcher',
    goal: 'Conduct thorough research and analysis on AI and AI agents',
    llm: answersOk(),
  });
  const writer = new Agent({
    role: 'Senior Writer',
    goal: 'Create compelling content about AI and AI agents',
    llm: answersOk(),
  });
  const task = new Task({
    description:
      'Generate a list of 5 interesting ideas for an article, then write one captivating paragraph for each idea that showcases the potential of a full article on this topic. Return the list of ideas with their paragraphs and your notes.',
    expectedOutput: '5 bullet points, each with a paragraph and accompanying notes.',
  });
  const manager = new Agent({
    role: 'Project Manager',
    goal: 'Efficiently manage the crew and ensure high-quality task completion',
    allowDelegation: true,
    llm: createScriptedModel((request) =>
      request.prompt.includes('Choose the worker') ? 'Researcher' : 'synthesis',
    ),
  });
  const crew = new Crew({ agents: [researcher, writer], tasks: [task], manager, process: 'hierarchical' });
  return { crew, manager };
}
