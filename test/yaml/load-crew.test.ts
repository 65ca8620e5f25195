import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  ContextOrderError,
  defineTool,
  MissingManagerError,
  ProviderModel,
  registerProvider,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { type LoadCrewOptions, loadCrew } from '../../src/yaml/load-crew.js';
import { echoModel, taskLine } from '../helpers.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/yaml/${name}`, import.meta.url));
const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;

const search = defineTool({
  name: 'search',
  description: 'Search the web',
  input: z.object({ query: z.string() }),
  execute: ({ query }) => `results for ${query}`,
});
const report = z.object({ title: z.string(), sections: z.array(z.string()) });

const AGENTS = yaml(
  'researcher:', // 1
  '  role: Researcher', // 2
  '  tools: [search]', // 3
  'writer:', // 4
  '  role: Writer', // 5
  '  llm: fast', // 6
);
const TASKS = yaml(
  'research:', // 1
  '  description: Research {topic}', // 2
  '  agent: researcher', // 3
  'write:', // 4
  '  description: Write it up', // 5
  '  agent: writer', // 6
  '  context: [research]', // 7
);

/** The ConfigError `loadCrew` throws for these options (the valid crew above, with changes). */
function loadError(options: Partial<LoadCrewOptions>): ConfigError {
  try {
    const base = {
      agents: AGENTS,
      tasks: TASKS,
      llm: echoModel(),
      models: { fast: echoModel() },
      tools: { search },
    };
    loadCrew({ ...base, ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('loadCrew did not throw');
}

function expectConfigError(error: ConfigError, file: string, line: number | undefined, key?: string) {
  expect(error.code).toBe('invalid_config');
  expect(error.details).toEqual({
    file,
    ...(line === undefined ? {} : { line }),
    ...(key === undefined ? {} : { key }),
  });
  expect(error.message.startsWith(line === undefined ? `${file}: ` : `${file} line ${line}: `)).toBe(true);
}

describe('loadCrew', () => {
  it('loads a CrewAI-style crew from files: tasks named by their keys in file order, scalars as YAML gives them', () => {
    const crew = loadCrew({
      agents: fixture('research/agents.yaml'),
      tasks: fixture('research/tasks.yaml'),
      llm: echoModel(),
      models: { writer: echoModel() },
      schemas: { report },
      tools: { search },
    });
    expect(crew.tasks.map((t) => t.name)).toEqual(['research_task', 'reporting_task', 'summary_task']);
    expect(crew.agents.map((a) => a.role)).toEqual([
      '{topic} Senior Data Researcher',
      '{topic} Reporting Analyst',
    ]);
    const [research, reporting, summary] = crew.tasks;
    expect(research?.description).toBe(
      'Conduct a thorough research about {topic}. Make sure you find anything relevant for {current_year}.\n',
    );
    expect(reporting?.expectedOutput).toBe('A JSON object:\n{"title": "...", "sections": ["..."]}\n');
    expect(crew.agents[1]?.backstory).toBe(
      "You're a meticulous analyst.\nYou turn findings into clear reports.\n",
    );
    expect(crew.agents[0]?.maxIter).toBe(4);
    expect(crew.agents[1]?.maxRetries).toBe(0);
    expect(reporting?.outputSchema).toBe(report);
    expect(summary?.context).toEqual([reporting, research]);
    expect(research?.context).toBeUndefined();
  });

  it('runs the loaded crew: placeholders filled at kickoff, tools granted, output schema parsed, context in list order', async () => {
    const researchLlm = createScriptedModel([
      { text: '', toolCalls: [{ id: '1', name: 'search', args: { query: 'AI' } }] },
      '- one\n- two\n- three',
    ]);
    const writer = createScriptedModel(['{"title": "AI", "sections": ["one", "two"]}', 'All in all: AI']);
    const crew = loadCrew({
      agents: fixture('research/agents.yaml'),
      tasks: fixture('research/tasks.yaml'),
      llm: researchLlm,
      models: { writer },
      schemas: { report },
      tools: { search },
    });
    const out = await crew.kickoff({ inputs: { topic: 'AI', current_year: 2026 } });

    expect(out.status).toBe('completed');
    const first = researchLlm.calls[0];
    expect(first?.system.startsWith('You are AI Senior Data Researcher. Your goal: Uncover')).toBe(true);
    expect(taskLine(first?.prompt ?? '')).toBe(
      'Task: Conduct a thorough research about AI. Make sure you find anything relevant for 2026.',
    );
    expect(first?.prompt).toContain('Expected output: A list with 3 bullet points about AI\n');
    expect(first?.tools.map((t) => t.name)).toEqual(['search']);
    expect(out.nodes[0]?.toolCalls).toEqual([
      { tool: 'search', args: { query: 'AI' }, result: 'results for AI' },
    ]);

    expect(writer.calls[0]?.tools).toEqual([]);
    expect(writer.calls[0]?.context).toBe('- one\n- two\n- three');
    expect(writer.calls[0]?.schema).toBeDefined();
    expect(out.outputOf({ name: 'reporting_task' })?.structured).toEqual({
      title: 'AI',
      sections: ['one', 'two'],
    });
    expect(writer.calls[1]?.context).toBe('{"title":"AI","sections":["one","two"]}\n- one\n- two\n- three');
    expect(out.raw).toBe('All in all: AI');
  });

  it('names a crew read from files after their folder, or CrewAI’s project folder around config/; text: crew', () => {
    const dir = mkdtempSync(join(tmpdir(), 'statecrew-yaml-name-'));
    try {
      mkdirSync(join(dir, 'trip_planner', 'config'), { recursive: true });
      for (const file of ['agents.yaml', 'tasks.yaml']) {
        copyFileSync(fixture(`research/${file}`), join(dir, 'trip_planner', 'config', file));
      }
      const files = (folder: string) => ({
        agents: join(folder, 'agents.yaml'),
        tasks: join(folder, 'tasks.yaml'),
        llm: echoModel(),
        models: { writer: echoModel() },
        schemas: { report },
        tools: { search },
      });
      expect(loadCrew(files(fixture('research'))).name).toBe('research');
      expect(loadCrew(files(join(dir, 'trip_planner', 'config'))).name).toBe('trip_planner');
      expect(loadCrew({ ...files(fixture('research')), name: 'mine' }).name).toBe('mine');
      expect(
        loadCrew({
          agents: '{writer: {role: Writer}}',
          tasks: 'a: {description: A, agent: writer}',
          llm: echoModel(),
        }).name,
      ).toBe('crew');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('loads YAML text, resolves a context naming a later task, and passes the crew options on', async () => {
    const llm = echoModel();
    const crew = loadCrew({
      agents: '{writer: {role: Writer}}',
      tasks: yaml(
        'edit:',
        '  description: Edit the draft',
        '  agent: writer',
        '  context: [draft]',
        'draft:',
        '  description: Draft {topic}',
        '  agent: writer',
        '  tools: [search]',
      ),
      llm,
      tools: { search },
      process: 'graph',
      name: 'docs',
      goal: 'A clean draft',
    });
    expect([crew.process, crew.name, crew.goal]).toEqual(['graph', 'docs', 'A clean draft']);
    expect(crew.tasks[1]?.tools).toEqual([search]);
    await crew.kickoff({ inputs: { topic: 'YAML' } });
    expect(llm.calls.map((c) => taskLine(c.prompt))).toEqual(['Task: Draft YAML', 'Task: Edit the draft']);
    expect(llm.calls[1]?.context).toBe('Writer: Draft YAML');
  });

  it('gives agents without an llm key the llm option, a models key its model, and a provider string a provider model', () => {
    const llm = echoModel();
    const fast = echoModel();
    const agents = yaml(
      'a:',
      '  role: A',
      'b:',
      '  role: B',
      '  llm: fast',
      'c:',
      '  role: C',
      '  llm: yaml-test:gpt-4.1-mini',
    );
    const tasks = yaml('t:', '  description: Do it', '  agent: a');
    registerProvider('yaml-test', () => echoModel());
    const crew = loadCrew({ agents, tasks, llm, models: { fast } });
    const [a, b, c] = crew.agents;
    expect(a?.llm).toBe(llm);
    expect(b?.llm).toBe(fast);
    expect(c?.llm).toBeInstanceOf(ProviderModel);
    expect(c?.llm).toMatchObject({
      id: 'yaml-test:gpt-4.1-mini',
      provider: 'yaml-test',
      modelId: 'gpt-4.1-mini',
    });
  });

  it('reads a folded role (CrewAI’s template) without its trailing newline, so a manager can name it', async () => {
    const agents = yaml(
      'analyst:',
      '  role: >',
      '    {topic} Senior',
      '    Analyst',
      '  goal: >',
      '    find facts',
    );
    const tasks = yaml('study:', '  description: Study {topic}');
    const manager = { allocate: (_: string, roles: string[]) => roles[0] ?? '', synthesize: () => 'merged' };
    const crew = loadCrew({ agents, tasks, llm: echoModel(), process: 'hierarchical', manager });
    expect(crew.agents[0]?.role).toBe('{topic} Senior Analyst');
    expect(crew.agents[0]?.goal).toBe('find facts\n');
    const out = await crew.kickoff({ inputs: { topic: 'AI' } });
    expect(out.delegations).toEqual([{ kind: 'allocate', task: 'study', role: 'AI Senior Analyst' }]);
  });

  it('lets what Crew itself refuses throw as Crew throws it', () => {
    const llm = echoModel();
    const options = { agents: AGENTS, llm, models: { fast: llm }, tools: { search } };
    expect(() => loadCrew({ ...options, tasks: TASKS, process: 'hierarchical' })).toThrow(
      MissingManagerError,
    );
    const backwards = TASKS.replace('  agent: researcher\n', '  agent: researcher\n  context: [write]\n');
    expect(() => loadCrew({ ...options, tasks: backwards })).toThrow(ContextOrderError);
  });
});

describe('loadCrew errors', () => {
  it('strict: names the file, line and key of an unknown key, and the known key it looks like', () => {
    const file = fixture('broken/agents-unknown-key.yaml');
    const error = loadError({ agents: file, strict: true });
    expectConfigError(error, file, 8, 'rol');
    expect(error.message).toMatch(
      /line 8: agent "writer" has an unknown key "rol" \(did you mean "role"\?\); the keys of an agent are: role, goal,/,
    );
  });

  it('takes allow_delegation: the agent delegates to a coworker of the YAML crew', async () => {
    const writerModel = createScriptedModel((request) => {
      const seen = request.messages.find((m) => m.role === 'tool');
      if (seen === undefined)
        return {
          text: '',
          toolCalls: [
            {
              id: 'd',
              name: 'ask_question',
              args: { coworker: 'Researcher', question: 'Facts?', context: '' },
            },
          ],
        };
      return `Wrote with: ${seen.content}`;
    });
    const crew = loadCrew({
      agents: AGENTS.replace('  llm: fast\n', '  llm: fast\n  allow_delegation: true\n'),
      tasks: yaml('write:', '  description: Write it up', '  agent: writer'),
      llm: createScriptedModel(['three facts']),
      models: { fast: writerModel },
      tools: { search },
    });
    expect(crew.agents.map((a) => [a.role, a.allowDelegation])).toEqual([
      ['Researcher', false],
      ['Writer', true],
    ]);
    const out = await crew.kickoff();
    expect(out.raw).toBe('Wrote with: three facts');
    expect(out.delegations).toMatchObject([
      { kind: 'ask', from: 'Writer', to: 'Researcher', nodeId: 'write' },
    ]);
    const error = loadError({
      agents: AGENTS.replace('  llm: fast\n', '  llm: fast\n  allow_delegation: maybe\n'),
    });
    expect(error.message).toBe(
      'agents.yaml line 7: agent "writer": allow_delegation must be true or false, got "maybe" (invalid_config)',
    );
  });

  it('strict: says that a CrewAI key statecrew does not support is one, and what to do instead', () => {
    const error = loadError({
      agents: AGENTS.replace('  role: Writer\n', '  role: Writer\n  cache: true\n'),
      strict: true,
    });
    expectConfigError(error, 'agents.yaml', 6, 'cache');
    expect(error.message).toBe(
      `agents.yaml line 6: agent "writer" sets "cache", a CrewAI key statecrew does not support: tools run on every call; cache inside the tool if it needs to (invalid_config)`,
    );
  });

  it('names the line of a task that names an agent agents.yaml does not define', () => {
    const file = fixture('broken/tasks-unknown-agent.yaml');
    const error = loadError({ tasks: file });
    expectConfigError(error, file, 8, 'agent');
    expect(error.message).toBe(
      `${file} line 8: task "plan_task" names agent "navigator", which agents.yaml does not define (invalid_config)`,
    );
  });

  it('names the line of the context item that names an unknown task', () => {
    const tasks = TASKS.replace('  context: [research]\n', '  context:\n    - research\n    - outline\n');
    const error = loadError({ tasks });
    expectConfigError(error, 'tasks.yaml', 9, 'context');
    expect(error.message).toBe(
      'tasks.yaml line 9: task "write" names context task "outline", which tasks.yaml does not define (invalid_config)',
    );
  });

  it('names an llm that is neither a models key nor a provider string, showing both provider forms', () => {
    const error = loadError({ agents: AGENTS.replace('llm: fast', 'llm: my model') });
    expectConfigError(error, 'agents.yaml', 6, 'llm');
    expect(error.message).toBe(
      'agents.yaml line 6: agent "writer" names model "my model", which the models option does not define (it has: fast); a provider string reads like "openai:gpt-4.1-mini" (or CrewAI\'s "openai/gpt-4.1-mini") (invalid_config)',
    );
  });

  it('names an agent without an llm key when no llm option is given', () => {
    const error = loadError({ llm: undefined });
    expectConfigError(error, 'agents.yaml', 1, 'llm');
    expect(error.message).toContain(
      `agent "researcher" has no llm: give it an llm key or pass loadCrew's llm option`,
    );
  });

  it('names the line of an unknown tool', () => {
    const error = loadError({ agents: AGENTS.replace('[search]', '[search, fetch]') });
    expectConfigError(error, 'agents.yaml', 3, 'tools');
    expect(error.message).toBe(
      'agents.yaml line 3: agent "researcher" names tool "fetch", which the tools option does not define (it has: search) (invalid_config)',
    );
  });

  it('names the line of an unknown output schema', () => {
    const error = loadError({ tasks: `${TASKS}  output_schema: report\n` });
    expectConfigError(error, 'tasks.yaml', 8, 'output_schema');
    expect(error.message).toBe(
      'tasks.yaml line 8: task "write" names output schema "report", which the schemas option does not define (none was given) (invalid_config)',
    );
  });

  it('names the line and key of a value of the wrong type', () => {
    const error = loadError({ agents: AGENTS.replace('  tools: [search]\n', '  max_iter: ten\n') });
    expectConfigError(error, 'agents.yaml', 3, 'max_iter');
    expect(error.message).toBe(
      'agents.yaml line 3: agent "researcher": max_iter must be a whole number ≥ 1, got "ten" (invalid_config)',
    );
  });

  it('names the entry that lacks a required key', () => {
    const error = loadError({ tasks: TASKS.replace('  description: Write it up\n', '') });
    expectConfigError(error, 'tasks.yaml', 4, 'description');
    expect(error.message).toBe(
      'tasks.yaml line 4: task "write" has no description, which it needs (a non-empty string) (invalid_config)',
    );
  });

  it('reports a YAML syntax error at the line the parser names', () => {
    const unclosed = TASKS.replace('  context: [research]\n', '  context: [research\n');
    const tasks = `${unclosed}edit:\n  description: Edit\n`;
    const error = loadError({ tasks });
    expectConfigError(error, 'tasks.yaml', 8);
    expect(error.message).toMatch(/^tasks\.yaml line 8: YAML syntax error: .*flow sequence/i);
  });

  it('names a key that appears twice', () => {
    const error = loadError({ tasks: `${TASKS}research:\n  description: Again\n` });
    expectConfigError(error, 'tasks.yaml', 8, 'research');
    expect(error.message).toBe(
      'tasks.yaml line 8: key "research" appears twice in one mapping (invalid_config)',
    );
  });

  it('names a file that does not exist', () => {
    const file = fixture('research/missing-agents.yaml');
    const error = loadError({ agents: file });
    expectConfigError(error, file, undefined);
    expect(error.message).toBe(`${file}: the file does not exist (invalid_config)`);
  });

  it('refuses an empty document and one that is not a mapping', () => {
    expectConfigError(loadError({ tasks: '# no tasks yet\n' }), 'tasks.yaml', 1);
    const scalar = loadError({ tasks: 'config/tasks' });
    expectConfigError(scalar, 'tasks.yaml', 1);
    expect(scalar.message).toBe(
      `tasks.yaml line 1: it must map each task name to the task's keys, got "config/tasks" (a file path ends in .yaml or .yml) (invalid_config)`,
    );
    const list = loadError({ agents: yaml('- role: Researcher', '- role: Writer') });
    expect(list.message).toBe(
      `agents.yaml line 1: it must map each agent name to the agent's keys, got a list (invalid_config)`,
    );
  });
});
