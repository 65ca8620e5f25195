import { describe, expect, it } from 'vitest';
import {
  Agent,
  ConfigError,
  InvalidOptionError,
  MissingAgentError,
  type StatecrewError,
} from '../../src/index.js';
import { loadCrew } from '../../src/yaml/load-crew.js';
import { echoModel } from '../helpers.js';

const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;

// CrewAI's template: tasks.yaml names no agents, crew.py binds them.
const AGENTS = yaml('researcher:', '  role: Researcher', 'reporting_analyst:', '  role: Reporting Analyst');
const TASKS = yaml(
  'research_task:', // 1
  '  description: Research {topic}', // 2
  '  expected_output: Ten bullet points', // 3
  'reporting_task:', // 4
  '  description: Write the report', // 5
  '  expected_output: A report', // 6
  '  agent: researcher', // 7
);

function thrown(run: () => unknown): StatecrewError {
  try {
    run();
  } catch (error) {
    return error as StatecrewError;
  }
  throw new Error('did not throw');
}

describe('loadCrew assign', () => {
  it('gives tasks their agents by name, as crew.py does, winning over an agent: key', async () => {
    const crew = loadCrew({
      agents: AGENTS,
      tasks: TASKS,
      llm: echoModel(),
      assign: { research_task: 'researcher', reporting_task: 'reporting_analyst' },
    });
    expect(crew.tasks.map((t) => t.agent?.role)).toEqual(['Researcher', 'Reporting Analyst']);
    const out = await crew.kickoff({ inputs: { topic: 'AI' } });
    expect(out.tasksOutput.map((t) => t.raw)).toEqual([
      'Researcher: Research AI',
      'Reporting Analyst: Write the report',
    ]);
  });

  it('refuses a task without an agent at load: missing_agent with the file, the line, the task and how to assign', () => {
    const error = thrown(() => loadCrew({ agents: AGENTS, tasks: TASKS, llm: echoModel() }));
    expect(error).toBeInstanceOf(MissingAgentError);
    expect(error.code).toBe('missing_agent');
    expect(error.details).toEqual({
      task: 'research_task',
      process: 'sequential',
      file: 'tasks.yaml',
      line: 1,
    });
    expect(error.message).toMatch(/^tasks\.yaml line 1: Task "research_task" has no agent/);
    expect(error.message).toContain("assign option ({ research_task: '<agent name>' })");
    expect(error.message).toContain('export const assign');
  });

  it('names the second task when only the first is assigned', () => {
    const tasks = TASKS.replace('  agent: researcher\n', '');
    const error = thrown(() =>
      loadCrew({ agents: AGENTS, tasks, llm: echoModel(), assign: { research_task: 'researcher' } }),
    );
    expect(error.details).toMatchObject({ task: 'reporting_task', line: 4 });
  });

  it('leaves agents to the manager of a hierarchical crew', () => {
    const crew = loadCrew({
      agents: AGENTS,
      tasks: TASKS,
      llm: echoModel(),
      process: 'hierarchical',
      manager: new Agent({ role: 'Manager', llm: echoModel() }),
    });
    expect(crew.tasks[0]?.agent).toBeUndefined();
  });

  it('refuses assign names the files do not define, and an assign that is not a mapping', () => {
    const task = thrown(() =>
      loadCrew({ agents: AGENTS, tasks: TASKS, llm: echoModel(), assign: { research: 'researcher' } }),
    );
    expect(task).toBeInstanceOf(ConfigError);
    expect(task.message).toBe(
      'tasks.yaml: the assign option names task "research", which tasks.yaml does not define (it has: research_task, reporting_task) (invalid_config)',
    );
    const agent = thrown(() =>
      loadCrew({ agents: AGENTS, tasks: TASKS, llm: echoModel(), assign: { research_task: 'analyst' } }),
    );
    expect(agent.details).toEqual({ file: 'tasks.yaml', line: 1, key: 'assign' });
    expect(agent.message).toContain(
      'assign option gives task "research_task" agent "analyst", which agents.yaml does not define (it has: researcher, reporting_analyst)',
    );
    const shape = thrown(() =>
      loadCrew({ agents: AGENTS, tasks: TASKS, llm: echoModel(), assign: ['researcher'] as never }),
    );
    expect(shape).toBeInstanceOf(InvalidOptionError);
    expect(shape.message).toContain('assign');
  });
});
