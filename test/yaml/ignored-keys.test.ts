import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import type { StatecrewEvent } from '../../src/types.js';
import { loadCrew } from '../../src/yaml/load-crew.js';

const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;

const AGENTS = yaml(
  'senior_react_engineer:', // 1
  '  role: Senior React Engineer', // 2
  '  goal: Build the page', // 3
  '  cache: true', // 4
);
// A landing page task as a CrewAI project writes it: CrewAI's Task has no stylesheet_file, and ignores it.
const TASKS = yaml(
  'update_page_task:', // 1
  '  description: Write the page for {idea}', // 2
  '  expected_ouput: The page', // 3
  '  agent: senior_react_engineer', // 4
  '  stylesheet_file: styles/landing.css', // 5
);

const model = () => createScriptedModel(() => 'the page');

describe('keys statecrew does not read', () => {
  it('are ignored: each run warns of them, naming file, line and key, and lists them in metadata', async () => {
    const crew = loadCrew({ agents: AGENTS, tasks: TASKS, llm: model() });
    const run = crew.run({ inputs: { idea: 'a bakery' } });
    const warnings: StatecrewEvent[] = [];
    run.events$.subscribe((event) => {
      if (event.type === 'run.warning') warnings.push(event);
    });
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(out.raw).toBe('the page');
    const ignoredKeys = [
      {
        file: 'agents.yaml',
        line: 4,
        kind: 'agent',
        entry: 'senior_react_engineer',
        key: 'cache',
        message:
          'key "cache" of agent "senior_react_engineer" is a CrewAI key statecrew does not support (tools run on every call; cache inside the tool if it needs to); ignored',
      },
      {
        file: 'tasks.yaml',
        line: 3,
        kind: 'task',
        entry: 'update_page_task',
        key: 'expected_ouput',
        message:
          'key "expected_ouput" of task "update_page_task" is not a CrewAI key statecrew reads; ignored (did you mean "expected_output"?)',
      },
      {
        file: 'tasks.yaml',
        line: 5,
        kind: 'task',
        entry: 'update_page_task',
        key: 'stylesheet_file',
        message:
          'key "stylesheet_file" of task "update_page_task" is not a CrewAI key statecrew reads; ignored',
      },
    ];
    expect(out.metadata.ignoredKeys).toEqual(ignoredKeys);
    expect(warnings).toMatchObject([{ code: 'ignored_key', details: { ignoredKeys } }]);
    const [warning] = warnings as Extract<StatecrewEvent, { type: 'run.warning' }>[];
    expect(warning?.message).toContain(
      'tasks.yaml line 5: key "stylesheet_file" of task "update_page_task" is not a CrewAI key statecrew reads; ignored',
    );
  });

  it('a crew with none has no metadata.ignoredKeys and no warning', async () => {
    const tasks = yaml('page:', '  description: Write the page', '  agent: senior_react_engineer');
    const crew = loadCrew({ agents: AGENTS.replace('  cache: true\n', ''), tasks, llm: model() });
    const run = crew.run();
    const codes: string[] = [];
    run.events$.subscribe((event) => {
      if (event.type === 'run.warning') codes.push(event.code);
    });
    const out = await run.result;
    expect(out.metadata.ignoredKeys).toBeUndefined();
    expect(codes).toEqual([]);
  });

  it('strict: an unknown key is refused, naming file, line and key', () => {
    expect(() =>
      loadCrew({ agents: AGENTS.replace('  cache: true\n', ''), tasks: TASKS, llm: model(), strict: true }),
    ).toThrow(
      new ConfigError(
        'tasks.yaml',
        3,
        'task "update_page_task" has an unknown key "expected_ouput" (did you mean "expected_output"?); the keys of a task are: description, expected_output, agent, context, output_schema, tools, max_retries, retry_delay_ms, timeout_ms, human_input, markdown, output_file, create_directory, async_execution, guardrail',
        'expected_ouput',
      ),
    );
  });

  it('keys whose loss would change what the crew does stay refused without strict', () => {
    const tasks = TASKS.replace('  stylesheet_file: styles/landing.css\n', '  output_json: Page\n');
    expect(() => loadCrew({ agents: AGENTS, tasks, llm: model() })).toThrow(
      'tasks.yaml line 5: task "update_page_task" sets "output_json", a CrewAI key statecrew does not support: use output_schema (invalid_config)',
    );
    const agents = AGENTS.replace('  cache: true\n', '  allow_code_execution: true\n');
    expect(() => loadCrew({ agents, tasks: TASKS, llm: model() })).toThrow(
      /agents\.yaml line 4: agent "senior_react_engineer" sets "allow_code_execution", a CrewAI key statecrew does not support/,
    );
  });
});
