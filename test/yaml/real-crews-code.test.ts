/**
 * Every real CrewAI crew under `test/fixtures/crewai/` that carries its crew.py as a `crew.ts`, loaded
 * as `statecrew run <folder>` loads it (src/cli/load-target.ts) and run with a scripted model: the
 * agents have the tools crew.py gives them, each task reads the context crew.py gives it, structured
 * outputs parse, output files are written, and landing_page_generator's three crews run their own tasks.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadTarget } from '../../src/cli/load-target.js';
import { registerProvider } from '../../src/index.js';
import type { Crew } from '../../src/runtime/crew/crew.js';
import { createScriptedModel, type RecordedRequest } from '../../src/testing.js';
import type { CrewOutput } from '../../src/types.js';
import { REAL_CREWS, type RealCrew } from '../fixtures/crewai/manifest.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/crewai/', import.meta.url));
// Inside the repository (gitignored), so a copy's crew.ts resolves `statecrew` as a project's does.
const SCRATCH = fileURLToPath(new URL('../../.scratch/real-crews/', import.meta.url));

/** A value fitting JSON schema `schema`, its strings marked with the model call that wrote them. */
function sampleOf(schema: Record<string, unknown>, call: number): unknown {
  const options = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  if (options !== undefined) return sampleOf(options.find((o) => o.type !== 'null') ?? {}, call);
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      return Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [key, sampleOf(value, call)]),
      );
    }
    case 'array':
      return [sampleOf((schema.items ?? {}) as Record<string, unknown>, call)];
    case 'integer':
    case 'number':
      return 7;
    case 'boolean':
      return true;
    default:
      return `text #${call}`;
  }
}

/** One scripted model for every agent: plain answers and structured ones, each marked with its call. */
const model = createScriptedModel((request, call) => {
  // A text guardrail's judge (its agent's role, marked) accepts.
  if (request.agent.endsWith('(guardrail)')) return 'YES';
  return request.schema === undefined
    ? `answer #${call + 1}`
    : JSON.stringify(sampleOf(request.schema as Record<string, unknown>, call + 1));
});

/** Everything a model call was sent, as one text. */
function sentText(call: RecordedRequest): string {
  return [call.system, call.prompt, ...call.messages.map((message) => message.content)].join('\n');
}

/** The model call that wrote `raw` (its `#n` mark). */
function callOf(raw: string): RecordedRequest {
  const mark = /#(\d+)/.exec(raw)?.[1];
  expect(mark, `no mark in ${raw}`).toBeDefined();
  return model.calls[Number(mark) - 1] as RecordedRequest;
}

beforeAll(() => {
  // CrewAI's default model, which crew.py uses where it names none: answered by the scripted model.
  registerProvider('openai', () => model);
  registerProvider('ollama', () => model); // stock_analysis' Ollama(model="llama3.1")
  registerProvider('nvidia_nim', () => model); // nvidia_models' NIM model
  mkdirSync(SCRATCH, { recursive: true });
  // The stand-in tools the crew.ts files import from their parent folder.
  cpSync(join(FIXTURES, 'tools.ts'), join(SCRATCH, 'tools.ts'));
});
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

/** A fresh copy of the crew's folder: what a run writes (`output_file`) stays out of the fixtures. */
function copyOf(crew: RealCrew): string {
  const dir = mkdtempSync(join(SCRATCH, `${crew.name}-`));
  cpSync(join(FIXTURES, crew.name), dir, { recursive: true });
  return dir;
}

/** The crew's code, as its crew.ts exports it. */
async function codeOf(dir: string): Promise<Record<string, unknown>> {
  return (await import(join(dir, 'crew.ts'))) as Record<string, unknown>;
}

interface TaskCode {
  context?: string[];
  outputFile?: string;
  outputSchema?: unknown;
  tools?: ({ name: string } | string)[];
}
interface AgentCode {
  tools?: { name: string }[];
  allowDelegation?: boolean;
}

/** The roles of the agents of the folder's agents.yaml, by name. */
function rolesOf(dir: string): Record<string, string> {
  const agents = parse(readFileSync(join(dir, 'config', 'agents.yaml'), 'utf8')) as Record<
    string,
    { role: string }
  >;
  return Object.fromEntries(Object.entries(agents).map(([name, agent]) => [name, agent.role.trimEnd()]));
}

/** Checks that each agent of `loaded` has the tools and delegation its crew.ts gives it. */
function checkAgents(loaded: Crew, dir: string, agentCode: Record<string, AgentCode>): void {
  const roles = rolesOf(dir);
  for (const [name, options] of Object.entries(agentCode)) {
    expect(Object.keys(roles), `${dir}: agentOptions.${name}`).toContain(name);
    const agent = loaded.agents.find((a) => a.role === roles[name]);
    if (agent === undefined) continue; // an agent of another crew of the folder
    const tools = (options.tools ?? []).map((t) => t.name);
    if (options.tools !== undefined)
      expect(
        agent.tools.map((t) => t.name),
        name,
      ).toEqual(tools);
    if (options.allowDelegation !== undefined)
      expect(agent.allowDelegation, name).toBe(options.allowDelegation);
  }
}

/** Checks each task of the run: the context it read, its structured output, its output file. */
function checkTasks(loaded: Crew, out: CrewOutput, dir: string, taskCode: Record<string, TaskCode>): void {
  for (const task of loaded.tasks) {
    const options = taskCode[task.name as string] ?? {};
    const output = out.outputOf(task);
    expect(output, `${dir}: ${task.name}`).toBeDefined();
    const sent = sentText(callOf(output?.raw ?? ''));
    for (const ref of options.context ?? []) {
      expect(sent, `${task.name} reads ${ref}`).toContain(out.outputOf({ name: ref })?.raw);
    }
    if (options.outputSchema !== undefined) {
      expect(output?.structured, `${task.name} structured`).toEqual(JSON.parse(output?.raw ?? ''));
    }
    if (options.outputFile !== undefined) {
      const written = readFileSync(join(dir, 'config', options.outputFile), 'utf8');
      expect(written, `${task.name} output file`).toContain(/#\d+/.exec(output?.raw ?? '')?.[0]);
    }
  }
}

/** Runs one crew of the folder (`crewName`, of its `crews`) as the CLI loads it, and checks it. */
async function runAndCheck(crew: RealCrew, dir: string, crewName?: string): Promise<CrewOutput> {
  const target = await loadTarget(dir, undefined, crewName);
  if (target.kind !== 'crew') throw new Error(`${crew.name} is not a crew`);
  const loaded = target.crew;
  const code = await codeOf(dir);
  checkAgents(loaded, dir, (code.agentOptions ?? {}) as Record<string, AgentCode>);
  const out = await loaded.kickoff({ inputs: crew.inputs });
  expect(out.status, crew.name).toBe('completed');
  expect(out.tasksOutput.map((t) => t.name).sort()).toEqual(loaded.tasks.map((t) => t.name as string).sort());
  checkTasks(loaded, out, dir, (code.taskOptions ?? {}) as Record<string, TaskCode>);
  return out;
}

describe('real CrewAI crews, with their crew.py as crew.ts', () => {
  for (const crew of REAL_CREWS.filter((c) => existsSync(join(FIXTURES, c.name, 'crew.ts')))) {
    it(`${crew.name}: loads as statecrew run does, and runs as its crew.py says`, async () => {
      const dir = copyOf(crew);
      const crews = Object.keys(((await codeOf(dir)).crews ?? {}) as object);
      if (crews.length === 0) {
        await runAndCheck(crew, dir);
        return;
      }
      for (const name of crews) {
        const out = await runAndCheck(crew, dir, name);
        const picked = ((await codeOf(dir)).crews as Record<string, { tasks: string[] }>)[name];
        expect(
          out.tasksOutput.map((t) => t.name),
          name,
        ).toEqual(picked?.tasks);
      }
    });
  }
});
