import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadCrew } from '../../src/index.js';
import { createScriptedModel, type RecordedRequest } from '../../src/testing.js';
import type { CrewOutput } from '../../src/types.js';
import { REAL_CREWS, type RealCrew } from '../fixtures/crewai/manifest.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/crewai/', import.meta.url));

/** Keys of a YAML mapping file in file order. */
function keysOf(file: string): string[] {
  return Object.keys(parse(readFileSync(file, 'utf8')) as Record<string, unknown>);
}

/** Tasks of a crew's tasks.yaml, each with its `agent:` when it has one. */
function tasksOf(dir: string): { name: string; agent: string | undefined; outputFile: string | undefined }[] {
  const tasks = parse(readFileSync(join(dir, 'config', 'tasks.yaml'), 'utf8')) as Record<
    string,
    { agent?: string; output_file?: string }
  >;
  return Object.entries(tasks).map(([name, task]) => ({
    name,
    agent: task.agent,
    outputFile: task.output_file,
  }));
}

/** Everything a model call was sent, as one text. */
function sentText(call: RecordedRequest): string {
  return [call.system, call.prompt, ...call.messages.map((message) => message.content)].join('\n');
}

const copies: string[] = [];
afterEach(() => {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh copy of the crew's folder: what a run writes (`output_file`) stays out of the repository. */
function copyOf(crew: RealCrew): string {
  const dir = mkdtempSync(join(tmpdir(), `crewai-${crew.name}-`));
  copies.push(dir);
  cpSync(join(FIXTURES, crew.name), dir, { recursive: true });
  return dir;
}

/** What a crew's crew.ts says a YAML-only run needs: each task's agent, and the models it names. */
interface CrewCode {
  readonly assign: Record<string, string>;
  readonly models: string[];
}

async function codeOf(crew: RealCrew): Promise<CrewCode> {
  const code = (await import(join(FIXTURES, crew.name, 'crew.ts'))) as {
    taskOptions?: Record<string, { agent?: string }>;
    models?: Record<string, unknown>;
  };
  const assign = Object.entries(code.taskOptions ?? {}).flatMap(([task, options]) =>
    options.agent === undefined ? [] : [[task, options.agent] as const],
  );
  return { assign: Object.fromEntries(assign), models: Object.keys(code.models ?? {}) };
}

/**
 * Loads the crew's YAML unchanged from a copy of its folder, with only the agent of each task that
 * its crew.ts gives, and runs it with a model that answers at once.
 */
async function run(crew: RealCrew) {
  const dir = copyOf(crew);
  const code = await codeOf(crew);
  // A text guardrail's judge (its agent's role, marked) accepts; every agent answers at once.
  const llm = createScriptedModel((request, call) =>
    request.agent.endsWith('(guardrail)') ? 'YES' : `Answer ${call + 1} of ${crew.name}.`,
  );
  const loaded = loadCrew({
    agents: join(dir, 'config', 'agents.yaml'),
    tasks: join(dir, 'config', 'tasks.yaml'),
    llm,
    models: Object.fromEntries(code.models.map((name) => [name, llm])), // the code's @llm names
    assign: code.assign, // task → agent, as the crew's code binds them
  });
  const out: CrewOutput = await loaded.kickoff({ inputs: crew.inputs });
  return { dir, llm, out };
}

describe('real CrewAI crews, unchanged', () => {
  it('collects at least 20 crews, each with its config, its source and an entry in the manifest', () => {
    const folders = readdirSync(FIXTURES, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(folders.length).toBeGreaterThanOrEqual(20);
    expect(REAL_CREWS.map((crew) => crew.name).sort()).toEqual(folders);
    for (const name of folders) {
      for (const file of ['config/agents.yaml', 'config/tasks.yaml', 'SOURCE.md', 'crew.ts']) {
        expect(existsSync(join(FIXTURES, name, file)), `${name}/${file}`).toBe(true);
      }
    }
  });

  it("gives every task whose YAML names no agent one in its crew.ts, an agent the crew's YAML defines", async () => {
    for (const crew of REAL_CREWS) {
      const dir = join(FIXTURES, crew.name);
      const agents = keysOf(join(dir, 'config', 'agents.yaml'));
      const { assign } = await codeOf(crew);
      const unassigned = tasksOf(dir).filter((task) => task.agent === undefined);
      expect(Object.keys(assign), crew.name).toEqual(
        expect.arrayContaining(unassigned.map((task) => task.name)),
      );
      for (const agent of Object.values(assign)) expect(agents, crew.name).toContain(agent);
    }
  });

  for (const crew of REAL_CREWS) {
    it(`${crew.name} runs: one output per task in tasks.yaml order, every placeholder filled`, async () => {
      const { dir, llm, out } = await run(crew);
      expect(out.status).toBe('completed');
      expect(out.tasksOutput.map((task) => task.name)).toEqual(tasksOf(dir).map((task) => task.name));
      // output_file: written beside the YAML, with what the task answered.
      for (const task of tasksOf(dir).filter((t) => t.outputFile !== undefined)) {
        const written = readFileSync(join(dir, 'config', task.outputFile as string), 'utf8');
        expect(written).toBe(out.outputOf({ name: task.name })?.raw);
      }
      const sent = llm.calls.map(sentText).join('\n');
      for (const [key, value] of Object.entries(crew.inputs)) {
        expect(sent, `{${key}} left unfilled`).not.toContain(`{${key}}`);
        expect(sent, `input ${key} never sent`).toContain(value);
      }
    });
  }
});
