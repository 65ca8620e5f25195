import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, CrewNotPickedError, defineTool } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { type LoadCrewOptions, loadCrew } from '../../src/yaml/load-crew.js';

const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;

const AGENTS = yaml(
  'idea_analyst:',
  '  role: Idea Analyst',
  'strategist:',
  '  role: Strategist',
  'engineer:',
  '  role: Engineer',
  '  tools: [search]',
);
const TASKS = yaml(
  'expand_idea_task:',
  '  description: Expand {idea}',
  'refine_idea_task:',
  '  description: Refine it',
  'choose_template_task:',
  '  description: Choose a template',
  '  agent: engineer',
);

const tool = (name: string) =>
  defineTool({ name, description: name, input: z.object({ q: z.string() }), execute: () => `${name} found` });
const search = tool('search');
const readFile = tool('read_file');
const page = z.object({ title: z.string(), sections: z.array(z.string()) });

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The two files written to a fresh folder, as a project keeps them. */
function project(): { agents: string; tasks: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'crew-code-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'agents.yaml'), AGENTS);
  writeFileSync(join(dir, 'tasks.yaml'), TASKS);
  return { agents: join(dir, 'agents.yaml'), tasks: join(dir, 'tasks.yaml'), dir };
}

/** A model that answers a structured task with a page, any other with the agent's role. */
const model = () =>
  createScriptedModel((request) =>
    request.schema === undefined ? `by ${request.agent}` : '{"title":"Bakery","sections":["menu"]}',
  );

function refused(options: Partial<LoadCrewOptions>): Error {
  try {
    loadCrew({
      agents: AGENTS,
      tasks: TASKS,
      llm: model(),
      tools: { search, read_file: readFile },
      ...options,
    });
  } catch (error) {
    return error as Error;
  }
  throw new Error('loadCrew did not refuse');
}

describe('loadCrew carries what crew.py says', () => {
  it('taskOptions and agentOptions set agent, context, schema, tools, output file, guardrail and delegation', async () => {
    const { agents, tasks, dir } = project();
    const llm = model();
    const checked: string[] = [];
    const crew = loadCrew({
      agents,
      tasks,
      llm,
      tools: { search, read_file: readFile },
      schemas: { page },
      taskOptions: {
        expand_idea_task: { agent: 'idea_analyst', outputFile: 'idea.md' },
        refine_idea_task: {
          agent: 'strategist',
          context: ['expand_idea_task'],
          tools: ['read_file'],
          guardrail: (output) => {
            checked.push(output.raw);
            return { ok: true };
          },
        },
        choose_template_task: { outputSchema: 'page', context: ['expand_idea_task', 'refine_idea_task'] },
      },
      agentOptions: {
        strategist: { allowDelegation: true, tools: [search] },
        engineer: { tools: ['read_file', search] },
      },
    });
    expect(crew.agents.map((a) => [a.role, a.tools.map((t) => t.name), a.allowDelegation])).toEqual([
      ['Idea Analyst', [], false],
      ['Strategist', ['search'], true],
      ['Engineer', ['read_file', 'search'], false],
    ]);
    expect(crew.tasks.map((t) => [t.name, t.agent?.role, (t.context ?? []).map((c) => c.name)])).toEqual([
      ['expand_idea_task', 'Idea Analyst', []],
      ['refine_idea_task', 'Strategist', ['expand_idea_task']],
      ['choose_template_task', 'Engineer', ['expand_idea_task', 'refine_idea_task']],
    ]);
    expect(crew.tasks[1]?.tools.map((t) => t.name)).toEqual(['read_file']);
    const out = await crew.kickoff({ inputs: { idea: 'a bakery' } });
    expect(out.status).toBe('completed');
    expect(out.outputOf({ name: 'choose_template_task' })?.structured).toEqual({
      title: 'Bakery',
      sections: ['menu'],
    });
    expect(readFileSync(join(dir, 'idea.md'), 'utf8')).toBe('by Idea Analyst');
    expect(checked).toEqual(['by Strategist']);
    const third = llm.calls.find((call) => call.agent === 'Engineer');
    const sent = [third?.prompt, ...(third?.messages ?? []).map((m) => m.content)].join('\n');
    expect(sent).toContain('by Idea Analyst');
    expect(sent).toContain('by Strategist');
  });

  it('a taskOptions value wins over the YAML key, as the Python argument does', () => {
    const crew = loadCrew({
      agents: AGENTS,
      tasks: TASKS,
      llm: model(),
      tools: { search },
      assign: { expand_idea_task: 'idea_analyst', refine_idea_task: 'strategist' },
      taskOptions: { choose_template_task: { agent: 'strategist', markdown: true, maxRetries: 4 } },
      agentOptions: { engineer: { tools: [] } },
    });
    const choose = crew.tasks[2];
    expect([choose?.agent?.role, choose?.markdown, choose?.maxRetries]).toEqual(['Strategist', true, 4]);
    expect(crew.agents[2]?.tools).toEqual([]);
  });

  it('crews: builds the picked crew, with its tasks in the order given and the agents they name', async () => {
    const assign = { expand_idea_task: 'idea_analyst', refine_idea_task: 'strategist' };
    const crews = {
      idea: { tasks: ['refine_idea_task', 'expand_idea_task'] },
      template: { tasks: ['choose_template_task'], maxConcurrency: 2 },
    };
    const idea = loadCrew({
      agents: AGENTS,
      tasks: TASKS,
      llm: model(),
      tools: { search },
      assign,
      crews,
      crew: 'idea',
    });
    expect(idea.name).toBe('idea');
    expect(idea.tasks.map((t) => t.name)).toEqual(['refine_idea_task', 'expand_idea_task']);
    expect(idea.agents.map((a) => a.role)).toEqual(['Idea Analyst', 'Strategist']);
    const out = await idea.kickoff({ inputs: { idea: 'a bakery' } });
    expect(out.tasksOutput.map((t) => t.name)).toEqual(['refine_idea_task', 'expand_idea_task']);
    const template = loadCrew({
      agents: AGENTS,
      tasks: TASKS,
      llm: model(),
      tools: { search },
      assign,
      crews,
      crew: 'template',
    });
    expect([template.tasks.map((t) => t.name), template.maxConcurrency]).toEqual([
      ['choose_template_task'],
      2,
    ]);
    const only = loadCrew({
      agents: AGENTS,
      tasks: TASKS,
      llm: model(),
      tools: { search },
      assign,
      crews: { idea: crews.idea },
    });
    expect(only.name).toBe('idea');
  });

  it('crews: a hierarchical crew names its manager by agent name', () => {
    const crew = loadCrew({
      agents: AGENTS,
      tasks: TASKS,
      llm: model(),
      tools: { search },
      crews: {
        all: {
          tasks: ['expand_idea_task', 'refine_idea_task'],
          process: 'hierarchical',
          manager: 'strategist',
        },
      },
    });
    expect(crew.process).toBe('hierarchical');
    expect((crew.manager as { role: string }).role).toBe('Strategist');
    expect(crew.agents.map((a) => a.role)).toEqual(['Idea Analyst', 'Engineer']);
  });
});

describe('loadCrew refuses a name crew code gives that the crew does not have', () => {
  const assign = { expand_idea_task: 'idea_analyst', refine_idea_task: 'strategist' };
  it('an unknown task, agent, tool, schema or crew: invalid_config naming what is known', () => {
    const cases: [Partial<LoadCrewOptions>, string][] = [
      [
        { assign, taskOptions: { expand: { agent: 'x' } } },
        'tasks.yaml: the taskOptions option names task "expand", which tasks.yaml does not define (it has: expand_idea_task, refine_idea_task, choose_template_task) (invalid_config)',
      ],
      [
        { assign, agentOptions: { analyst: { allowDelegation: true } } },
        'agents.yaml: the agentOptions option names agent "analyst", which agents.yaml does not define (it has: idea_analyst, strategist, engineer) (invalid_config)',
      ],
      [
        { assign, agentOptions: { engineer: { tools: ['scrape'] } } },
        'agents.yaml: the agentOptions option gives agent "engineer" tool "scrape", which the tools option does not define (it has: search, read_file) (invalid_config)',
      ],
      [
        { assign, taskOptions: { choose_template_task: { outputSchema: 'Page' } } },
        'tasks.yaml: the taskOptions option gives task "choose_template_task" output schema "Page", which the schemas option does not define (none was given) (invalid_config)',
      ],
      [
        { assign, taskOptions: { choose_template_task: { context: ['expand'] } } },
        'tasks.yaml: the taskOptions.choose_template_task.context option names task "expand", which tasks.yaml does not define (it has: expand_idea_task, refine_idea_task, choose_template_task) (invalid_config)',
      ],
      [
        { assign, crews: { idea: { tasks: ['expand_idea_task'] } }, crew: 'page' },
        'tasks.yaml: the crew option names crew "page", which the crews option does not define (it has: idea) (invalid_config)',
      ],
      [
        { assign, crews: { idea: { tasks: ['expand'] } } },
        'tasks.yaml: the crews.idea.tasks option names task "expand", which tasks.yaml does not define (it has: expand_idea_task, refine_idea_task, choose_template_task) (invalid_config)',
      ],
    ];
    for (const [options, message] of cases) {
      const error = refused(options);
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toBe(message);
    }
  });

  it('assign and taskOptions giving one task two agents', () => {
    const error = refused({ assign, taskOptions: { refine_idea_task: { agent: 'engineer' } } });
    expect(error.message).toBe(
      'tasks.yaml: task "refine_idea_task" is given agent "strategist" by the assign option and agent "engineer" by taskOptions: keep one (invalid_config)',
    );
  });

  it('several crews and none picked: crew_not_picked, listing them', () => {
    const crews = { idea: { tasks: ['expand_idea_task'] }, template: { tasks: ['choose_template_task'] } };
    const error = refused({ assign, crews });
    expect(error).toBeInstanceOf(CrewNotPickedError);
    expect(error.message).toBe(
      'loadCrew: the crews option defines 2 crews (idea, template): pick one with the crew option (from the CLI: --crew <name>) (crew_not_picked)',
    );
  });
});
