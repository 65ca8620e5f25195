import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MARKDOWN_INSTRUCTION } from '../../src/actors/markdown.js';
import { ConfigError, MemoryStore } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { loadCrew } from '../../src/yaml/load-crew.js';
import { echoModel, gatedModel, taskLine } from '../helpers.js';

const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;

const AGENTS = yaml(
  'researcher:', // 1
  '  role: Researcher', // 2
  '  goal: Find facts', // 3
  '  verbose: true', // 4
  '  memory: true', // 5
  '  allow_delegation: false', // 6
);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'statecrew-crewai-keys-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a CrewAI project's config folder under the temporary folder; returns the two paths. */
async function project(tasks: string, agents = AGENTS) {
  const config = join(dir, 'project', 'config');
  await mkdir(config, { recursive: true });
  await writeFile(join(config, 'agents.yaml'), agents);
  await writeFile(join(config, 'tasks.yaml'), tasks);
  return { agents: join(config, 'agents.yaml'), tasks: join(config, 'tasks.yaml') };
}
const configDir = () => join(dir, 'project', 'config');

describe('CrewAI task and agent keys in YAML', () => {
  it('adds CrewAI’s Markdown instruction, word for word, after the expected output of a markdown task', async () => {
    const llm = echoModel();
    const tasks = yaml(
      'plain:',
      '  description: Plain one',
      '  expected_output: text',
      '  agent: researcher',
      'pretty:',
      '  description: Pretty one',
      '  expected_output: a report',
      '  agent: researcher',
      '  markdown: true',
    );
    await loadCrew({ agents: AGENTS, tasks, llm }).kickoff();
    const [plain, pretty] = llm.calls;
    expect(plain?.prompt).not.toContain('Markdown');
    expect(pretty?.prompt.endsWith(`Expected output: a report\n${MARKDOWN_INSTRUCTION}`)).toBe(true);
    expect(MARKDOWN_INSTRUCTION).toBe(
      [
        'Your final answer MUST be formatted in Markdown syntax.',
        'Follow these guidelines:',
        '- Use # for headers',
        '- Use ** for bold text',
        '- Use * for italic text',
        '- Use - or * for bullet points',
        '- Use `code` for inline code',
        '- Use ```language for code blocks',
      ].join('\n'),
    );
  });

  it('accepts verbose, and turns on the execution memory for an agent with memory: true', async () => {
    const llm = createScriptedModel((request) => {
      const task = taskLine(request.prompt).slice('Task: '.length);
      if (task !== 'Recall') return `fact from ${task}`;
      const seen = request.messages.find((m) => m.role === 'tool');
      if (seen === undefined) return { text: '', toolCalls: [{ id: 'm1', name: 'results', args: {} }] };
      return { text: seen.content };
    });
    const tasks = yaml(
      'find:',
      '  description: Find',
      '  agent: researcher',
      'recall:',
      '  description: Recall',
      '  agent: researcher',
    );
    const crew = loadCrew({ agents: AGENTS, tasks, llm });
    expect(crew.memory).toEqual({});
    expect(crew.agents[0]?.tools.map((t) => t.name)).toEqual(['results']);
    const out = await crew.kickoff();
    expect(JSON.parse(out.raw)).toEqual([
      { nodeId: 'find', task: 'find', agent: 'Researcher', raw: 'fact from Find' },
    ]);
  });

  it('still refuses a verbose or memory that is not true or false, naming the line', () => {
    const agents = yaml('researcher:', '  role: Researcher', '  memory: lots');
    const tasks = yaml('find:', '  description: Find', '  agent: researcher');
    expect(() => loadCrew({ agents, tasks, llm: echoModel() })).toThrow(
      'agents.yaml line 3: agent "researcher": memory must be true or false, got "lots" (invalid_config)',
    );
  });

  it('reads CrewAI’s max_retry_limit as max_retries and max_execution_time (seconds) as timeout_ms', () => {
    const agents = yaml(
      'a:',
      '  role: A',
      '  max_retry_limit: 1',
      '  max_execution_time: 90',
      'b:',
      '  role: B',
    );
    const tasks = yaml('t:', '  description: Do it', '  agent: a');
    const crew = loadCrew({ agents, tasks, llm: echoModel() });
    expect(crew.agents.map((a) => [a.maxRetries, a.timeoutMs])).toEqual([
      [1, 90_000],
      [undefined, undefined],
    ]);
    const both = yaml('a:', '  role: A', '  timeout_ms: 5000', '  max_execution_time: 5');
    expect(() => loadCrew({ agents: both, tasks, llm: echoModel() })).toThrow(
      'agents.yaml line 4: agent "a" sets both timeout_ms and max_execution_time (CrewAI\'s name for it): keep one (invalid_config)',
    );
  });

  it('loads allow_delegation and human_input as the agents-together options', () => {
    const agents = yaml('boss:', '  role: Boss', '  allow_delegation: true', 'helper:', '  role: Helper');
    const tasks = yaml('plan:', '  description: Plan', '  agent: boss', '  human_input: true');
    const crew = loadCrew({ agents, tasks, llm: echoModel(), store: new MemoryStore() });
    expect(crew.agents.map((a) => a.allowDelegation)).toEqual([true, false]);
    expect(crew.tasks[0]?.humanInput).toBe(true);
  });

  it('gives a task without context every earlier output with CrewAI’s divider, unless the options say previous', async () => {
    const tasks = yaml(
      'research:',
      '  description: research',
      '  agent: researcher',
      'outline:',
      '  description: outline',
      '  agent: researcher',
      'write:',
      '  description: write',
      '  agent: researcher',
    );
    const contextOfWrite = async (options: { context?: 'previous' | 'all' }) => {
      const llm = createScriptedModel((request) => `${taskLine(request.prompt).slice('Task: '.length)} done`);
      const crew = loadCrew({ agents: AGENTS, tasks, llm, ...options });
      expect(crew.context).toBe(options.context ?? 'all');
      await crew.kickoff();
      return llm.calls.find((call) => taskLine(call.prompt) === 'Task: write')?.context;
    };
    expect(await contextOfWrite({})).toBe('research done\n\n----------\n\noutline done');
    expect(await contextOfWrite({ context: 'all' })).toBe('research done\n\n----------\n\noutline done');
    expect(await contextOfWrite({ context: 'previous' })).toBe('outline done');
  });

  it('writes output_file relative to the tasks YAML’s folder, not the working directory', async () => {
    const paths = await project(
      yaml(
        'report:',
        '  description: Report on {topic}',
        '  agent: researcher',
        '  output_file: output/{topic}-report.md',
      ),
    );
    const out = await loadCrew({ ...paths, llm: echoModel() }).kickoff({ inputs: { topic: 'ai' } });
    expect(out.status).toBe('completed');
    const written = await readFile(join(configDir(), 'output', 'ai-report.md'), 'utf8');
    expect(written).toBe('Researcher: Report on ai');
  });

  it('reads create_directory: false, failing a write into a folder that is not there, as CrewAI does', async () => {
    const paths = await project(
      yaml(
        'report:',
        '  description: Report',
        '  agent: researcher',
        '  output_file: missing/report.md',
        '  create_directory: false',
      ),
    );
    const out = await loadCrew({ ...paths, llm: echoModel() }).kickoff();
    expect(out.failures.report?.code).toBe('output_file_failed');
    expect(out.errors.report).toContain("does not exist and the task's createDirectory is false");
    await mkdir(join(configDir(), 'missing'));
    const again = await loadCrew({ ...paths, llm: echoModel() }).kickoff();
    expect(again.status).toBe('completed');
    expect(await readFile(join(configDir(), 'missing', 'report.md'), 'utf8')).toBe('Researcher: Report');
  });

  it('refuses an output_file that leaves the project folder, unless allowOutsideFiles', async () => {
    const paths = await project(
      yaml('report:', '  description: Report', '  agent: researcher', '  output_file: ../../shared/r.md'),
    );
    expect(() => loadCrew({ ...paths, llm: echoModel() })).toThrow(
      /Task "report" cannot write its output file "..\/..\/shared\/r.md": it resolves to .*, outside the crew's folder/,
    );
    await loadCrew({ ...paths, llm: echoModel(), allowOutsideFiles: true }).kickoff();
    expect(await readFile(join(dir, 'shared', 'r.md'), 'utf8')).toBe('Researcher: Report');
  });

  it('refuses an output_file holding a shell metacharacter, as CrewAI does, even with allowOutsideFiles', () => {
    const tasks = yaml(
      'report:',
      '  description: Report',
      '  agent: researcher',
      '  output_file: "output.txt | rm -rf /"',
    );
    expect(() => loadCrew({ agents: AGENTS, tasks, llm: echoModel(), allowOutsideFiles: true })).toThrow(
      expect.objectContaining({
        code: 'output_file_failed',
        message:
          'Task "report" cannot write its output file "output.txt | rm -rf /": it holds "|", a shell metacharacter (output_file_failed)',
      }),
    );
  });

  it('resolves output_file against the working directory for YAML text, and baseDir when given', () => {
    const tasks = yaml('report:', '  description: Report', '  agent: researcher', '  output_file: r.md');
    expect(loadCrew({ agents: AGENTS, tasks, llm: echoModel() }).files.baseDir).toBe(process.cwd());
    expect(loadCrew({ agents: AGENTS, tasks, llm: echoModel(), baseDir: dir }).files.baseDir).toBe(dir);
  });

  it('refuses an output_file that is not a path, naming the line', () => {
    const tasks = yaml('report:', '  description: Report', '  agent: researcher', '  output_file: 3');
    expect(() => loadCrew({ agents: AGENTS, tasks, llm: echoModel() })).toThrow(ConfigError);
    expect(() => loadCrew({ agents: AGENTS, tasks, llm: echoModel() })).toThrow(
      'tasks.yaml line 4: task "report": output_file must be a file path, got 3 (invalid_config)',
    );
  });

  it('runs async_execution tasks beside each other and joins them at the next task', async () => {
    const gate = gatedModel();
    const tasks = yaml(
      'research:',
      '  description: research',
      '  agent: researcher',
      '  async_execution: true',
      'facts:',
      '  description: facts',
      '  agent: researcher',
      '  async_execution: true',
      'write:',
      '  description: write',
      '  agent: researcher',
      '  context: [research, facts]',
    );
    const run = loadCrew({ agents: AGENTS, tasks, llm: gate.model }).run();
    await gate.whenCalled('research');
    await gate.whenCalled('facts');
    gate.release('research', 'r');
    gate.release('facts', 'f');
    await gate.whenCalled('write');
    gate.release('write');
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(gate.model.calls.map((c) => c.context)).toEqual(['', '', 'r\nf']);
  });

  it('refuses tasks.yaml ending with two async_execution tasks', () => {
    const tasks = yaml(
      'a:',
      '  description: a',
      '  agent: researcher',
      '  async_execution: true',
      'b:',
      '  description: b',
      '  agent: researcher',
      '  async_execution: true',
    );
    expect(() => loadCrew({ agents: AGENTS, tasks, llm: echoModel() })).toThrow(
      /the crew ends with 2 asynchronous tasks \("a", "b"\)/,
    );
  });
});
