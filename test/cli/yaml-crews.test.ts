import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, cli, fixture } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-crewai-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const store = `sqlite:${join(cwd, 'runs.db')}`;

describe('statecrew run on a CrewAI project folder', { timeout: CLI_TIMEOUT }, () => {
  it('reads config/agents.yaml and config/tasks.yaml, and the agents crew.ts assigns, with CrewAI llm strings', async () => {
    const ran = await cli(
      ['run', fixture('crewai-project'), '--input', 'topic=AI', '--json', '--store', store],
      { cwd },
    );
    expect(ran.stderr).toContain('research_task started by AI Senior Data Researcher');
    expect(ran.code).toBe(0);
    const out = JSON.parse(ran.stdout) as { status: string; tasksOutput: { raw: string }[] };
    expect(out.status).toBe('completed');
    expect(out.tasksOutput.map((t) => t.raw)).toEqual([
      'gpt-4o-mini as AI Senior Data Researcher: Conduct a thorough research about AI',
      'gpt-4o-mini as AI Reporting Analyst: Review the context you got and expand each topic into a full section for a report.',
    ]);
  });

  it('resumes a run of a CrewAI project folder from the store', async () => {
    const ran = await cli(['run', fixture('crewai-project'), '--input', 'topic=AI', '--store', store], {
      cwd,
    });
    const id = /run ([0-9a-f-]{36}) started/.exec(ran.stdout)?.[1] ?? '';
    expect(id).not.toBe('');
    const shown = await cli(['show', id, '--json', '--store', store], { cwd });
    expect(JSON.parse(shown.stdout)).toMatchObject({ status: 'completed' });
  });

  it('names the file, the line and the task with no agent, and how to assign one', async () => {
    const ran = await cli(['run', fixture('crewai-unassigned'), '--input', 'topic=AI', '--store', store], {
      cwd,
    });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toMatch(
      /^statecrew: .*crewai-unassigned\/config\/tasks\.yaml line 1: Task "research_task" has no agent, which the sequential process needs: .*export const assign = \{ research_task: '<agent name>' \} from the crew's crew\.ts \(where CrewAI has crew\.py.* \(missing_agent\)\n$/,
    );
  });
});

describe('statecrew run on a CrewAI project whose YAML sets a key CrewAI ignores', {
  timeout: CLI_TIMEOUT,
}, () => {
  it('runs it, and prints a warning naming the file, the line and the key', async () => {
    const ran = await cli(['run', fixture('crewai-ignored-key'), '--input', 'idea=a bakery', '--json'], {
      cwd,
    });
    expect(ran.code).toBe(0);
    expect(ran.stderr).toMatch(
      /warning: .*crewai-ignored-key\/config\/tasks\.yaml line 5: key "stylesheet_file" of task "update_page_task" is not a CrewAI key statecrew reads; ignored \(ignored_key\)/,
    );
    const out = JSON.parse(ran.stdout) as { status: string; metadata: { ignoredKeys: { key: string }[] } };
    expect(out.status).toBe('completed');
    expect(out.metadata.ignoredKeys.map((k) => k.key)).toEqual(['stylesheet_file']);
  });
});

describe('statecrew run on a CrewAI project whose crew.ts Node reads as CommonJS', {
  timeout: CLI_TIMEOUT,
}, () => {
  it('says why it cannot be loaded and what to change: "type": "module", or a .mts name', async () => {
    // Outside any package that says "type": "module" (a temporary folder), Node reads crew.ts as
    // CommonJS, which cannot load statecrew, an ES module.
    const project = join(cwd, 'common-js-project');
    cpSync(fixture('crewai-ignored-key'), project, { recursive: true });
    const ran = await cli(['run', project, '--input', 'idea=a bakery'], { cwd });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('cannot be loaded');
    expect(ran.stderr).toContain(
      'Node reads this file as CommonJS (no "type": "module" in the package.json above it), and statecrew is an ES module: add "type": "module" to that package.json, or name the file .mts (.mjs)',
    );
    expect(ran.stderr).toContain('(unknown_command_target)');
  });
});

describe('statecrew run on a CrewAI project whose crew.ts defines two crews', {
  timeout: CLI_TIMEOUT,
}, () => {
  it('refuses to guess which, runs the one --crew picks, and resumes that one', async () => {
    const folder = fixture('crewai-two-crews');
    const unpicked = await cli(['run', folder, '--input', 'idea=a bakery', '--store', store], { cwd });
    expect(unpicked.code).toBe(1);
    expect(unpicked.stderr).toContain(
      'the crews option defines 2 crews (idea, template): pick one with the crew option (from the CLI: --crew <name>) (crew_not_picked)',
    );
    const idea = await cli(
      ['run', folder, '--crew', 'idea', '--input', 'idea=a bakery', '--json', '--store', store],
      { cwd },
    );
    expect(idea.code).toBe(0);
    const paths = await cli(['paths', folder, '--crew', 'idea'], { cwd });
    expect(paths.stdout).toContain('expand_idea_task');
    expect(paths.stdout).not.toContain('update_page_task');
    expect(JSON.parse(idea.stdout)).toMatchObject({
      status: 'completed',
      tasksOutput: [{ name: 'expand_idea_task', raw: 'Idea Analyst answered' }],
    });
    // The template crew waits for a review of its page: resuming it rebuilds the same crew.
    const paused = await cli(
      ['run', folder, '--crew', 'template', '--input', 'idea=a bakery', '--store', store],
      { cwd },
    );
    expect(paused.stdout).toContain('paused: 1 completed');
    const id = /run ([0-9a-f-]{36}) started/.exec(paused.stdout)?.[1] ?? '';
    const done = await cli(
      ['resume', id, '--store', store, '--review', 'update_page_task', 'approve', '--json'],
      { cwd },
    );
    expect(done.stderr).not.toContain('statecrew:');
    const out = JSON.parse(done.stdout) as { status: string; tasksOutput: { name: string }[] };
    expect(out.status).toBe('completed');
    expect(out.tasksOutput.map((t) => t.name)).toEqual(['choose_template_task', 'update_page_task']);
  });
});

describe('statecrew run on a YAML crew whose agent has mcps:', { timeout: CLI_TIMEOUT }, () => {
  it('reaches the MCP server its crew.ts exports under mcps, and leaves no server process behind', async () => {
    const notes = mkdtempSync(join(tmpdir(), 'statecrew-cli-notes-'));
    try {
      writeFileSync(join(notes, 'monday.md'), 'standup');
      const ran = await cli(['run', fixture('mcp-crew'), '--input', `folder=${notes}`, '--json'], {
        cwd,
        env: { NOTES_DIR: notes },
      });
      expect(ran.stderr).not.toContain('statecrew:');
      expect(ran.code).toBe(0);
      const out = JSON.parse(ran.stdout) as { status: string; raw: string };
      expect(out).toMatchObject({ status: 'completed', raw: 'The folder holds: [FILE] monday.md' });
      // The server was started with the notes folder as its root: no process with it is left.
      const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line.includes(notes));
      expect(left).toEqual([]);
    } finally {
      rmSync(notes, { recursive: true, force: true });
    }
  });
});
