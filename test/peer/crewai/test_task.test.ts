/**
 * CrewAI's `lib/crewai/tests/test_task.py` (crewAIInc/crewAI at commit
 * f4731f5025f861c78e3af0487cc80bf5e7c64782, `CREWAI_COMMIT`), the tests that need no real model, in
 * CrewAI's order; the ones not ported and the differences are listed in docs/crewai.md.
 *
 * How statecrew's constructs stand for CrewAI's:
 * - `Task(...)` / `Agent(...)` → `new Task({...})` / `new Agent({...})`, options in camelCase
 *   (`expected_output` → `expectedOutput`, `output_file` → `outputFile`, `async_execution` →
 *   `asyncExecution`; `output_json` / `output_pydantic` → the one `outputSchema`).
 * - `patch.object(Agent, "execute_task", return_value=...)` → the agent's model is a scripted model
 *   answering that text; what `execute_task` was called with is what the model was asked
 *   (`llm.calls`: `context` '' for CrewAI's `None`, `tools` the tools the task's run may call).
 * - `task.execute_sync(agent=...)` → a crew of that one task (`kickoff()`), or `agent.execute(...)`
 *   for a task without an agent; `task.execute_async(...)` → a crew of one `asyncExecution` task.
 * - A task's `callback` → the run's `node.completed` event, which carries the task's output.
 * - `task.description` after `interpolate_inputs_and_add_conversation_history` → the run's
 *   `TaskOutput.description` (statecrew tasks are definitions: a run interpolates a copy).
 * - `interpolate_only(text, inputs)` → `interpolate(text, inputs)`, and `kickoff({ inputs })` where
 *   CrewAI refuses inputs; `ast.literal_eval` of a rendered object → `JSON.parse`.
 * - `task._save_file(...)` with a path relative to the working directory → a run of the task in a
 *   crew whose `baseDir` is a fresh folder.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  Crew,
  defineTool,
  type GuardrailVerdict,
  interpolate,
  isStatecrewError,
  type StatecrewEvent,
  Task,
  type TaskOutput,
} from '../../../src/index.js';
import { createScriptedModel, type ScriptedModel } from '../../../src/testing.js';
import { difference, peer } from './peer.js';

const GOAL = 'Make the best research and analysis on content about AI and AI agents';
const BACKSTORY =
  "You're an expert researcher, specialized in technology, software engineering, AI and startups. You work as a freelancer and is now working on doing research and analysis for a new customer.";
const IDEAS =
  'Give me a list of 5 interesting ideas to explore for na article, what makes them unique and interesting.';
const FIVE_IDEAS = 'Bullet point list of 5 interesting ideas.';

/** CrewAI's researcher, its model answering `answer` (CrewAI patches `Agent.execute_task` to return it). */
function researcherAnswering(answer = 'ok', options: { tools?: ReturnType<typeof fakeTool>[] } = {}) {
  const llm = createScriptedModel(() => answer);
  const agent = new Agent({
    role: 'Researcher',
    goal: GOAL,
    backstory: BACKSTORY,
    allowDelegation: false,
    llm,
    ...options,
  });
  return { agent, llm };
}

function fakeTool(name: string) {
  return defineTool({ name, description: 'Fake tool', input: z.object({}), execute: () => undefined });
}

/** The error `make` throws (a test fails when it throws none). */
function thrown(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

const folders: string[] = [];
/** A fresh folder, removed after the test: CrewAI's `tmp_path`, or the working directory it writes in. */
function freshFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'statecrew-peer-task-'));
  folders.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

peer('test_task.py::test_task_tool_reflect_agent_tools', async () => {
  const tool = fakeTool('fake_tool');
  const { agent: researcher, llm } = researcherAnswering('ok', { tools: [tool] });
  const task = new Task({
    description:
      'Give me a list of 5 interesting ideas to explore for na article, what makes them unique and interesting.',
    expectedOutput: 'Bullet point list of 5 ideas.',
    agent: researcher,
  });
  // statecrew's `task.tools` holds the task's own grants; the tools a task's run may call are what
  // its model is offered: `task.tools == [fake_tool]` is that list.
  await new Crew({ tasks: [task] }).kickoff();
  expect(llm.calls[0]?.tools.map((spec) => spec.name)).toEqual(['fake_tool']);
});

peer('test_task.py::test_task_tool_takes_precedence_over_agent_tools', async () => {
  const tool = fakeTool('fake_tool');
  const taskTool = fakeTool('fake_task_tool');
  const { agent: researcher, llm } = researcherAnswering('ok', { tools: [tool] });
  const task = new Task({
    description:
      'Give me a list of 5 interesting ideas to explore for an article, what makes them unique and interesting.',
    expectedOutput: 'Bullet point list of 5 ideas.',
    agent: researcher,
    tools: [taskTool],
  });
  expect(task.tools).toEqual([taskTool]);
  await new Crew({ tasks: [task] }).kickoff();
  expect(llm.calls[0]?.tools.map((spec) => spec.name)).toEqual(['fake_task_tool']);
});

peer('test_task.py::test_task_prompt_includes_expected_output', async () => {
  const { agent: researcher, llm } = researcherAnswering('ok');
  const task = new Task({
    description: IDEAS,
    expectedOutput: 'Bullet point list of 5 interesting ideas.',
    agent: researcher,
  });
  await new Crew({ tasks: [task] }).kickoff();
  // execute.assert_called_once_with(task=task, context=None, tools=[])
  expect(llm.calls).toHaveLength(1);
  expect(llm.calls[0]?.prompt).toContain(`Task: ${IDEAS}`);
  expect(llm.calls[0]?.prompt).toContain('Expected output: Bullet point list of 5 interesting ideas.');
  expect(llm.calls[0]?.context).toBe('');
  expect(llm.calls[0]?.tools).toEqual([]);
});

/** The `node.completed` events of a run of `crew` (CrewAI's task callback calls), and its result. */
async function completions(crew: Crew) {
  const run = crew.run();
  const outputs: TaskOutput[] = [];
  run.events$.subscribe((event: StatecrewEvent) => {
    if (event.type === 'node.completed') outputs.push(event.output);
  });
  return { outputs, out: await run.result };
}

peer('test_task.py::test_task_callback', async () => {
  const { agent: researcher } = researcherAnswering('ok');
  const task = new Task({
    name: 'Brainstorm',
    description: IDEAS,
    expectedOutput: 'Bullet point list of 5 interesting ideas.',
    agent: researcher,
  });
  // statecrew has no task `callback`: a task's completion is the run's `node.completed` event.
  const { outputs, out } = await completions(new Crew({ tasks: [task] }));
  expect(outputs).toEqual([out.outputOf(task)]);
  const output = outputs[0] as TaskOutput;
  expect(output.description).toBe(task.description);
  expect(output.expectedOutput).toBe(task.expectedOutput);
  expect(output.name).toBe(task.name);
});

const CALLBACK_DESCRIPTION =
  'Give me a list of 5 interesting ideas to explore for an article, what makes them unique and interesting.';

async function callbackOutput() {
  const { agent: researcher } = researcherAnswering('exported_ok');
  const task = new Task({
    description: CALLBACK_DESCRIPTION,
    expectedOutput: 'Bullet point list of 5 interesting ideas.',
    agent: researcher,
    // CrewAI's `callback=task_completed`: the run's node.completed event below.
  });
  const { outputs } = await completions(new Crew({ tasks: [task] }));
  expect(outputs).toHaveLength(1);
  return { task, researcher, callbackData: JSON.stringify(outputs[0]) };
}

difference(
  'test_task.py::test_task_callback_returns_task_output',
  async () => {
    const { task, researcher, callbackData } = await callbackOutput();
    expect(typeof callbackData).toBe('string');
    const outputDict = JSON.parse(callbackData);
    expect(outputDict).toEqual({
      description: task.description,
      raw: 'exported_ok',
      pydantic: null,
      json_dict: null,
      agent: researcher.role,
      summary: 'Give me a list of 5 interesting ideas to explore...',
      name: task.name ?? task.description,
      expected_output: 'Bullet point list of 5 interesting ideas.',
      output_format: 'raw',
      messages: [],
      tool_failures: [],
    });
  },
  async () => {
    const { callbackData } = await callbackOutput();
    expect(JSON.parse(callbackData)).toEqual({
      name: 'task-1',
      description: CALLBACK_DESCRIPTION,
      expectedOutput: 'Bullet point list of 5 interesting ideas.',
      agent: 'Researcher',
      raw: 'exported_ok',
    });
  },
);

peer('test_task.py::test_execute_with_agent', async () => {
  const { agent: researcher, llm } = researcherAnswering('ok');
  const task = new Task({ description: IDEAS, expectedOutput: 'Bullet point list of 5 interesting ideas.' });
  // A task without an agent, run by the agent given at execution: `agent.execute(...)`.
  expect(await researcher.execute(task.description, task.expectedOutput)).toBe('ok');
  expect(llm.calls).toHaveLength(1);
  expect(llm.calls[0]?.prompt).toContain(`Task: ${IDEAS}`);
  expect(llm.calls[0]?.context).toBe('');
  expect(llm.calls[0]?.tools).toEqual([]);
});

peer('test_task.py::test_async_execution', async () => {
  const { agent: researcher, llm } = researcherAnswering('ok');
  const task = new Task({
    description: IDEAS,
    expectedOutput: 'Bullet point list of 5 interesting ideas.',
    asyncExecution: true,
    agent: researcher,
  });
  const result = await new Crew({ tasks: [task] }).kickoff();
  expect(result.raw).toBe('ok');
  expect(llm.calls).toHaveLength(1);
  expect(llm.calls[0]?.context).toBe('');
  expect(llm.calls[0]?.tools).toEqual([]);
});

peer('test_task.py::test_multiple_output_type_error', () => {
  const Output = z.object({ field: z.string() });
  // statecrew has one `outputSchema`, so a task cannot be given two output types: CrewAI's two
  // options together are refused at construction, as unknown options.
  const error = thrown(
    () =>
      new Task({
        description: IDEAS,
        expectedOutput: 'Bullet point list of 5 interesting ideas.',
        // @ts-expect-error CrewAI's option names, which statecrew's Task does not take
        outputJson: Output,
        outputPydantic: Output,
      }),
  );
  expect(isStatecrewError(error, 'invalid_option')).toBe(true);
});

/** CrewAI's accepted guardrails: a lambda, a function, bound and static methods, a partial. */
function acceptedGuardrails(): Task[] {
  const desc = IDEAS;
  const expectedOutput = FIVE_IDEAS;
  const guardrailFn = (x: TaskOutput): GuardrailVerdict => ({ ok: true, value: x.raw });
  class GuardrailHolder {
    guardrailFn(x: TaskOutput): GuardrailVerdict {
      return { ok: true, value: x.raw };
    }
    static guardrailStaticFn(x: TaskOutput): GuardrailVerdict {
      return { ok: true, value: x.raw };
    }
  }
  const errorFn = (x: TaskOutput, y: boolean): GuardrailVerdict => (y ? { ok: true, value: x.raw } : false);
  const obj = new GuardrailHolder();
  return [
    new Task({ description: desc, expectedOutput, guardrail: (x) => ({ ok: true, value: x.raw }) }),
    new Task({ description: desc, expectedOutput, guardrail: guardrailFn }),
    new Task({ description: desc, expectedOutput, guardrail: obj.guardrailFn.bind(obj) }),
    new Task({ description: desc, expectedOutput, guardrail: GuardrailHolder.guardrailStaticFn }),
    new Task({ description: desc, expectedOutput, guardrail: (x) => errorFn(x, true) }),
  ];
}

/** A guardrail taking a second argument of its own, as CrewAI's `error_fn(x, y)`. */
const twoArgumentGuardrail = (x: TaskOutput, y: unknown): GuardrailVerdict =>
  y ? { ok: true, value: x.raw } : false;

difference(
  'test_task.py::test_guardrail_type_error',
  () => {
    expect(acceptedGuardrails()).toHaveLength(5);
    expect(
      () => new Task({ description: IDEAS, expectedOutput: FIVE_IDEAS, guardrail: twoArgumentGuardrail }),
    ).toThrow();
  },
  async () => {
    // A guardrail's second argument is the attempt's context (its `signal` and `ask`): a function of
    // two arguments is a guardrail like any other; what is not a function is refused.
    const { agent } = researcherAnswering('ok');
    const seen: unknown[] = [];
    const task = new Task({
      description: IDEAS,
      agent,
      guardrail: (output, context) => {
        seen.push(context.signal);
        return twoArgumentGuardrail(output, context);
      },
    });
    const out = await new Crew({ tasks: [task] }).kickoff();
    expect(out.raw).toBe('ok');
    expect(seen[0]).toBeInstanceOf(AbortSignal);
    const notAFunction = thrown(
      () =>
        new Task({
          description: IDEAS,
          // @ts-expect-error a guardrail must be a function
          guardrail: 42,
        }),
    );
    expect(isStatecrewError(notAFunction, 'invalid_option')).toBe(true);
  },
);

const SCORE_DESCRIPTION =
  "Give me an integer score between 1-5 for the following title: 'The impact of AI in the future of work', check examples to based your evaluation.";

peer('test_task.py::test_task_definition_based_on_dict', () => {
  const config = { description: SCORE_DESCRIPTION, expectedOutput: 'The score of the title.' };
  const task = new Task({ ...config });
  expect(task.description).toBe(config.description);
  expect(task.expectedOutput).toBe(config.expectedOutput);
  expect(task.agent).toBeUndefined();
});

difference(
  'test_task.py::test_conditional_task_definition_based_on_dict',
  () => {
    const config = { description: SCORE_DESCRIPTION, expectedOutput: 'The score of the title.' };
    // CrewAI's ConditionalTask(**config, condition=...): a task with a `condition`.
    const task = new Task({
      ...config,
      // @ts-expect-error statecrew's Task takes no condition
      condition: () => true,
    });
    expect(task.description).toBe(config.description);
    expect(task.expectedOutput).toBe(config.expectedOutput);
    expect(task.agent).toBeUndefined();
  },
  () => {
    const error = thrown(
      () =>
        new Task({
          description: SCORE_DESCRIPTION,
          // @ts-expect-error statecrew's Task takes no condition
          condition: () => true,
        }),
    );
    expect(isStatecrewError(error, 'invalid_option')).toBe(true);
    expect((error as Error).message).toContain('condition');
  },
);

peer('test_task.py::test_interpolate_inputs', async () => {
  const tmpPath = freshFolder();
  const llm = createScriptedModel(() => 'ideas');
  const task = new Task({
    description:
      'Give me a list of 5 interesting ideas about {topic} to explore for an article, what makes them unique and interesting.',
    expectedOutput: 'Bullet point list of 5 interesting ideas about {topic}.',
    outputFile: join(tmpPath, '{topic}', 'output_{date}.txt'),
    agent: new Agent({ role: 'Researcher', llm }),
  });
  const crew = new Crew({ tasks: [task], baseDir: tmpPath });

  let out = await crew.kickoff({ inputs: { topic: 'AI', date: '2025' } });
  expect(out.tasksOutput[0]?.description).toBe(
    'Give me a list of 5 interesting ideas about AI to explore for an article, what makes them unique and interesting.',
  );
  expect(out.tasksOutput[0]?.expectedOutput).toBe('Bullet point list of 5 interesting ideas about AI.');
  expect(existsSync(join(tmpPath, 'AI', 'output_2025.txt'))).toBe(true);

  out = await crew.kickoff({ inputs: { topic: 'ML', date: '2025' } });
  expect(out.tasksOutput[0]?.description).toBe(
    'Give me a list of 5 interesting ideas about ML to explore for an article, what makes them unique and interesting.',
  );
  expect(out.tasksOutput[0]?.expectedOutput).toBe('Bullet point list of 5 interesting ideas about ML.');
  expect(existsSync(join(tmpPath, 'ML', 'output_2025.txt'))).toBe(true);
});

peer('test_task.py::test_interpolate_only', () => {
  const jsonString = '{"info": "Look at {placeholder}", "nested": {"val": "{nestedVal}"}}';
  let result = interpolate(jsonString, { placeholder: 'the data', nestedVal: 'something else' });
  expect(result).toContain('"info": "Look at the data"');
  expect(result).toContain('"val": "something else"');
  expect(result).not.toContain('{placeholder}');
  expect(result).not.toContain('{nestedVal}');

  const normalString = 'Hello {name}, welcome to {place}!';
  result = interpolate(normalString, { name: 'John', place: 'CrewAI' });
  expect(result).toBe('Hello John, welcome to CrewAI!');

  result = interpolate('', { unused: 'value' });
  expect(result).toBe('');

  const noPlaceholders = 'Hello, this is a test';
  result = interpolate(noPlaceholders, { unused: 'value' });
  expect(result).toBe(noPlaceholders);
});

peer('test_task.py::test_interpolate_only_with_dict_inside_expected_output', () => {
  const jsonString =
    '{"questions": {"main_question": "What is the user\'s name?", "secondary_question": "What is the user\'s age?"}}';
  let result = interpolate(jsonString, {
    questions: {
      main_question: "What is the user's name?",
      secondary_question: "What is the user's age?",
    },
  });
  expect(result).toContain('"main_question": "What is the user\'s name?"');
  expect(result).toContain('"secondary_question": "What is the user\'s age?"');
  expect(result).toBe(jsonString);

  const normalString = 'Hello {name}, welcome to {place}!';
  result = interpolate(normalString, { name: 'John', place: 'CrewAI' });
  expect(result).toBe('Hello John, welcome to CrewAI!');

  result = interpolate('', { unused: 'value' });
  expect(result).toBe('');

  const noPlaceholders = 'Hello, this is a test';
  result = interpolate(noPlaceholders, { unused: 'value' });
  expect(result).toBe(noPlaceholders);
});

const KEY_DESCRIPTION =
  'Give me a list of 5 interesting ideas about {topic} to explore for an article, what makes them unique and interesting.';
const KEY_EXPECTED = 'Bullet point list of 5 interesting ideas about {topic}.';

difference(
  'test_task.py::test_key',
  () => {
    const task = new Task({ description: KEY_DESCRIPTION, expectedOutput: KEY_EXPECTED });
    const hash = createHash('md5').update(`${KEY_DESCRIPTION}|${KEY_EXPECTED}`).digest('hex');
    expect((task as unknown as { key?: string }).key, 'The key should be the hash of the description.').toBe(
      hash,
    );
  },
  async () => {
    // A task is known by its node id: its name, else `task-<position>`; inputs never change it.
    const llm = createScriptedModel(() => 'ideas');
    const task = new Task({
      description: KEY_DESCRIPTION,
      expectedOutput: KEY_EXPECTED,
      agent: new Agent({ role: 'R', llm }),
    });
    const crew = new Crew({ tasks: [task] });
    const first = await crew.kickoff({ inputs: { topic: 'AI' } });
    const second = await crew.kickoff({ inputs: { topic: 'ML' } });
    expect(first.nodes.map((node) => node.nodeId)).toEqual(['task-1']);
    expect(second.nodes.map((node) => node.nodeId)).toEqual(['task-1']);
    expect(task.description).toBe(KEY_DESCRIPTION);
  },
);

/** `new Task` with `outputFile`, in a crew writing under `baseDir` (statecrew checks paths there). */
function crewWritingTo(outputFile: string, baseDir: string): Crew {
  const agent = new Agent({ role: 'Writer', llm: createScriptedModel(() => 'never') });
  return new Crew({
    tasks: [new Task({ description: 'Test task', expectedOutput: 'Test output', outputFile, agent })],
    baseDir,
  });
}

difference(
  'test_task.py::test_output_file_validation',
  () => {
    const tmpPath = freshFolder();
    expect(
      new Task({ description: 'Test task', expectedOutput: 'Test output', outputFile: 'output.txt' })
        .outputFile,
    ).toBe('output.txt');
    const tempFile = join(tmpPath, 'output.txt');
    expect(
      new Task({ description: 'Test task', expectedOutput: 'Test output', outputFile: tempFile }).outputFile,
    ).toBe(
      tempFile.replace(/^\/+/, ''), // CrewAI removes the leading slash
    );
    expect(
      new Task({
        description: 'Test task',
        expectedOutput: 'Test output',
        outputFile: '{dir}/output_{date}.txt',
      }).outputFile,
    ).toBe('{dir}/output_{date}.txt');
    const refused = (outputFile: string, message: RegExp) =>
      expect(() => new Task({ description: 'Test task', expectedOutput: 'Test output', outputFile })).toThrow(
        message,
      );
    refused('../output.txt', /Path traversal/);
    refused('folder/../output.txt', /Path traversal/);
    refused('output.txt | rm -rf /', /Shell special characters/);
    refused('~/output.txt', /Shell expansion/);
    refused('$HOME/output.txt', /Shell expansion/);
    refused('{invalid-name}/output.txt', /Invalid template variable/);
  },
  () => {
    // Paths are kept as given and judged by the crew, by where they lead from its `baseDir`.
    const baseDir = freshFolder();
    const inside = join(baseDir, 'output.txt');
    expect(new Task({ description: 'Test task', outputFile: inside }).outputFile).toBe(inside);
    expect(() => crewWritingTo(inside, baseDir)).not.toThrow();
    expect(() => crewWritingTo('output.txt', baseDir)).not.toThrow();
    expect(() => crewWritingTo('{dir}/output_{date}.txt', baseDir)).not.toThrow();
    expect(() => crewWritingTo('folder/../output.txt', baseDir)).not.toThrow();
    const outside = thrown(() => crewWritingTo('../output.txt', baseDir));
    expect(isStatecrewError(outside, 'output_file_failed')).toBe(true);
    // Shell characters are refused, as in CrewAI.
    for (const path of ['output.txt | rm -rf /', '~/output.txt', '$HOME/output.txt']) {
      expect(
        isStatecrewError(
          thrown(() => crewWritingTo(path, baseDir)),
          'output_file_failed',
        ),
        path,
      ).toBe(true);
    }
  },
);

/** A crew whose one task writes `ok` to `outputFile` under `baseDir`. */
function writingCrew(outputFile: string, baseDir: string, createDirectory = true): Crew {
  const llm = createScriptedModel(() => 'test content');
  const task = new Task({
    description: 'Test task',
    expectedOutput: 'Test output',
    outputFile,
    createDirectory,
    agent: new Agent({ role: 'Writer', llm }),
  });
  return new Crew({ tasks: [task], baseDir });
}

peer('test_task.py::test_create_directory_true', async () => {
  const cwd = freshFolder();
  const outputPath = 'test_create_dir/output.txt';
  const crew = writingCrew(outputPath, cwd);
  const resolvedPath = join(cwd, outputPath);
  const resolvedDir = join(cwd, 'test_create_dir');
  expect(existsSync(resolvedDir)).toBe(false);
  await crew.kickoff();
  expect(existsSync(resolvedDir)).toBe(true);
  expect(existsSync(resolvedPath)).toBe(true);
});

peer('test_task.py::test_create_directory_false', async () => {
  const cwd = freshFolder();
  const outputPath = 'nonexistent_test_dir/output.txt';
  // `task._save_file(...)` → the task's run writing its output: a crew of the task, given an agent.
  const task = new Task({
    description: 'Test task',
    expectedOutput: 'Test output',
    outputFile: outputPath,
    createDirectory: false,
    agent: new Agent({ role: 'Writer', llm: createScriptedModel(() => 'test content') }),
  });
  const resolvedDir = join(cwd, 'nonexistent_test_dir');
  expect(existsSync(resolvedDir)).toBe(false);
  // CrewAI raises RuntimeError; the task fails with output_file_failed under the one result contract.
  // CrewAI's message in statecrew's words: `create_directory is False` → `createDirectory is false`.
  const out = await new Crew({ tasks: [task], baseDir: cwd }).kickoff();
  expect(out.failures['task-1']?.code).toBe('output_file_failed');
  expect(out.errors['task-1']).toMatch(/folder .* does not exist and the task's createDirectory is false/);
  expect(existsSync(resolvedDir)).toBe(false);
});

peer('test_task.py::test_create_directory_default', () => {
  const task = new Task({
    description: 'Test task',
    expectedOutput: 'Test output',
    outputFile: 'output.txt',
  });
  expect(task.createDirectory).toBe(true);
});

peer('test_task.py::test_create_directory_with_existing_directory', async () => {
  const cwd = freshFolder();
  const outputPath = 'existing_test_dir/output.txt';
  mkdirSync(join(cwd, 'existing_test_dir'), { recursive: true });
  await writingCrew(outputPath, cwd, false).kickoff();
  expect(existsSync(join(cwd, outputPath))).toBe(true);
});

peer('test_task.py::test_github_issue_3149_reproduction', () => {
  const task = new Task({
    description: 'Test task for issue reproduction',
    expectedOutput: 'Test output',
    outputFile: 'test_output.txt',
    createDirectory: true,
  });
  expect(task.createDirectory).toBe(true);
  expect(task.outputFile).toBe('test_output.txt');
});

difference(
  'test_task.py::test_interpolate_with_list_of_strings',
  () => {
    const inputStr = 'Available items: {items}';
    const inputs = { items: ['apple', 'banana', 'cherry'] };
    // f"Available items: {inputs['items']}": the list as Python writes it.
    expect(interpolate(inputStr, inputs)).toBe("Available items: ['apple', 'banana', 'cherry']");
    expect(interpolate(inputStr, { items: [] })).toBe('Available items: []');
  },
  () => {
    const result = interpolate('Available items: {items}', { items: ['apple', 'banana', 'cherry'] });
    expect(result.startsWith('Available items: ')).toBe(true);
    expect(JSON.parse(result.slice('Available items: '.length))).toEqual(['apple', 'banana', 'cherry']);
    expect(interpolate('Available items: {items}', { items: [] })).toBe('Available items: []');
  },
);

// In the cases below CrewAI reads the rendered value back with `ast.literal_eval`: statecrew renders
// objects and lists as JSON, read back with `JSON.parse`.

peer('test_task.py::test_interpolate_with_list_of_dicts', () => {
  const inputData = {
    people: [
      { name: 'Alice', age: 30, skills: ['Python', 'AI'] },
      { name: 'Bob', age: 25, skills: ['Java', 'Cloud'] },
    ],
  };
  const parsedResult = JSON.parse(interpolate('{people}', inputData));
  expect(Array.isArray(parsedResult)).toBe(true);
  expect(parsedResult).toHaveLength(2);
  expect(parsedResult[0].name).toBe('Alice');
  expect(parsedResult[0].age).toBe(30);
  expect(parsedResult[0].skills).toEqual(['Python', 'AI']);
  expect(parsedResult[1].name).toBe('Bob');
  expect(parsedResult[1].age).toBe(25);
  expect(parsedResult[1].skills).toEqual(['Java', 'Cloud']);
});

peer('test_task.py::test_interpolate_with_nested_structures', () => {
  const inputData = {
    company: {
      name: 'TechCorp',
      departments: [
        { name: 'Engineering', employees: 50, tools: ['Git', 'Docker', 'Kubernetes'] },
        { name: 'Sales', employees: 20, regions: { north: 5, south: 3 } },
      ],
    },
  };
  const parsed = JSON.parse(interpolate('{company}', inputData));
  expect(parsed.name).toBe('TechCorp');
  expect(parsed.departments).toHaveLength(2);
  expect(parsed.departments[0].tools).toEqual(['Git', 'Docker', 'Kubernetes']);
  expect(parsed.departments[1].regions.north).toBe(5);
});

peer('test_task.py::test_interpolate_with_special_characters', () => {
  const inputData = {
    special_data: {
      quotes: `This has "double" and 'single' quotes`,
      unicode: '文字化けテスト',
      symbols: '!@#$%^&*()',
      empty: '',
    },
  };
  const parsed = JSON.parse(interpolate('{special_data}', inputData));
  expect(parsed.quotes).toBe(`This has "double" and 'single' quotes`);
  expect(parsed.unicode).toBe('文字化けテスト');
  expect(parsed.symbols).toBe('!@#$%^&*()');
  expect(parsed.empty).toBe('');
});

peer('test_task.py::test_interpolate_mixed_types', () => {
  const inputData = {
    data: {
      name: 'Test Dataset',
      samples: 1000,
      features: ['age', 'income', 'location'],
      metadata: { source: 'public', validated: true, tags: ['demo', 'test', 'temp'] },
    },
  };
  const parsed = JSON.parse(interpolate('{data}', inputData));
  expect(parsed.name).toBe('Test Dataset');
  expect(parsed.samples).toBe(1000);
  expect(parsed.metadata.tags).toEqual(['demo', 'test', 'temp']);
});

peer('test_task.py::test_interpolate_complex_combination', () => {
  const inputData = {
    report: [
      {
        month: 'January',
        metrics: { sales: 15000, expenses: 8000, profit: 7000 },
        top_products: ['Product A', 'Product B'],
      },
      {
        month: 'February',
        metrics: { sales: 18000, expenses: 8500, profit: 9500 },
        top_products: ['Product C', 'Product D'],
      },
    ],
  };
  const parsed = JSON.parse(interpolate('{report}', inputData));
  expect(parsed).toHaveLength(2);
  expect(parsed[0].month).toBe('January');
  expect(parsed[1].metrics.profit).toBe(9500);
  expect(parsed[1].top_products).toContain('Product D');
});

/**
 * The error a kickoff with `inputs` rejects with, before any model call: statecrew checks inputs when
 * a run starts (CrewAI's `interpolate_only` checks them when it interpolates).
 */
async function kickoffRefusal(inputs: Record<string, unknown>): Promise<unknown> {
  const llm = createScriptedModel(() => 'never');
  const task = new Task({ description: 'Use {data} {obj}', agent: new Agent({ role: 'Researcher', llm }) });
  const failure = await new Crew({ tasks: [task] }).kickoff({ inputs }).then(
    () => new Error('the kickoff was not refused'),
    (error: unknown) => error,
  );
  expect(llm.calls).toHaveLength(0);
  return failure;
}

/** Expects `error` to be a coded statecrew refusal whose message names `type`. */
function expectUnsupported(error: unknown, type: string): void {
  expect(isStatecrewError(error), String(error)).toBe(true);
  expect((error as Error).message).toContain(type);
}

peer('test_task.py::test_interpolate_invalid_type_validation', async () => {
  // Python's `set` is JavaScript's `Set`.
  expectUnsupported(await kickoffRefusal({ data: new Set() }), 'Set');
  const invalidNested = { profile: { name: 'John', age: 30, tags: new Set(['a', 'b', 'c']) } };
  expectUnsupported(await kickoffRefusal({ data: invalidNested }), 'Set');
});

peer('test_task.py::test_interpolate_custom_object_validation', async () => {
  class CustomObject {
    constructor(readonly value: number) {}
    toString(): string {
      return String(this.value);
    }
  }
  expectUnsupported(await kickoffRefusal({ obj: new CustomObject(5) }), 'CustomObject');
  expectUnsupported(
    await kickoffRefusal({ data: { valid: 1, invalid: new CustomObject(5) } }),
    'CustomObject',
  );
  expectUnsupported(await kickoffRefusal({ data: [1, 'valid', new CustomObject(5)] }), 'CustomObject');
  expectUnsupported(
    await kickoffRefusal({ data: { level1: { level2: [{ level3: new CustomObject(5) }] } } }),
    'CustomObject',
  );
});

peer('test_task.py::test_interpolate_valid_complex_types', () => {
  const validData = {
    name: 'Valid Dataset',
    stats: {
      count: 1000,
      distribution: [0.2, 0.3, 0.5],
      features: ['age', 'income'],
      nested: { deep: [1, 2, 3], deeper: { a: 1, b: 2.5 } },
    },
  };
  const parsed = JSON.parse(interpolate('{data}', { data: validData }));
  expect(parsed.name).toBe('Valid Dataset');
  expect(parsed.stats.nested.deeper.b).toBe(2.5);
});

difference(
  'test_task.py::test_interpolate_edge_cases',
  () => {
    expect(interpolate('{}', { data: {} })).toBe('{}');
    expect(interpolate('[]', { data: [] })).toBe('[]');
    expect(interpolate('{num}', { num: 42 })).toBe('42');
    expect(interpolate('{num}', { num: 3.14 })).toBe('3.14');
    expect(interpolate('{flag}', { flag: true })).toBe('True');
    expect(interpolate('{flag}', { flag: false })).toBe('False');
  },
  () => {
    expect(interpolate('{}', { data: {} })).toBe('{}');
    expect(interpolate('[]', { data: [] })).toBe('[]');
    expect(interpolate('{num}', { num: 42 })).toBe('42');
    expect(interpolate('{num}', { num: 3.14 })).toBe('3.14');
    expect(interpolate('{flag}', { flag: true })).toBe('true');
    expect(interpolate('{flag}', { flag: false })).toBe('false');
  },
);

peer('test_task.py::test_interpolate_valid_types', () => {
  const validData = {
    name: 'Test',
    active: true,
    deleted: false,
    optional: null,
    nested: { flag: true, empty: null },
  };
  const parsed = JSON.parse(interpolate('{data}', { data: validData }));
  expect(parsed.active).toBe(true);
  expect(parsed.deleted).toBe(false);
  expect(parsed.optional).toBeNull();
  expect(parsed.nested.flag).toBe(true);
  expect(parsed.nested.empty).toBeNull();
});

peer('test_task.py::test_task_with_no_max_execution_time', async () => {
  // CrewAI's max_execution_time=None: an agent without `timeoutMs`.
  const { agent: researcher, llm } = researcherAnswering('ok');
  expect(researcher.timeoutMs).toBeUndefined();
  const task = new Task({ description: IDEAS, expectedOutput: FIVE_IDEAS, agent: researcher });
  const result = await new Crew({ tasks: [task] }).kickoff();
  expect(result.raw).toBe('ok');
  expect(llm.calls).toHaveLength(1);
});

/** A crew of one asynchronous task whose work fails with `boom!`, not retried. */
function failingAsyncCrew(): { crew: Crew; llm: ScriptedModel } {
  const llm = createScriptedModel(() => {
    throw new Error('boom!');
  });
  const researcher = new Agent({ role: 'Researcher', goal: GOAL, backstory: BACKSTORY, llm, maxRetries: 0 });
  const task = new Task({
    description: IDEAS,
    expectedOutput: FIVE_IDEAS,
    asyncExecution: true,
    agent: researcher,
  });
  return { crew: new Crew({ tasks: [task] }), llm };
}

difference(
  'test_task.py::test_async_execution_fails',
  async () => {
    await expect(failingAsyncCrew().crew.kickoff()).rejects.toThrow('boom!');
  },
  async () => {
    // The run resolves, failed, with the error in its result.
    const out = await failingAsyncCrew().crew.kickoff();
    expect(out.status).toBe('failed');
    expect(out.errors['task-1']).toContain('boom!');
  },
);
