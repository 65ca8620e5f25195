import { describe, expect, it } from 'vitest';
import {
  Agent,
  ConfigError,
  Crew,
  type Guardrail,
  modelGuardrail,
  Task,
  UnknownProviderError,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { loadCrew } from '../../src/yaml/load-crew.js';
import { echoModel } from '../helpers.js';

const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;
const AGENTS = yaml('writer:', '  role: Writer');

/** A writer whose drafts count up, and a judge that answers from `verdicts` in turn. */
function writerAndJudge(verdicts: string[]) {
  let drafts = 0;
  let judged = 0;
  return createScriptedModel((request) => {
    if (request.agent === 'Writer (guardrail)') return verdicts[judged++] ?? 'YES';
    drafts += 1;
    return `draft ${drafts}`;
  });
}

describe('guardrail: in tasks.yaml', () => {
  it('has the task agent’s model judge a text guardrail: NO retries with its reason, YES accepts; its calls count', async () => {
    const llm = writerAndJudge(['NO, it must name a source.', 'YES']);
    const tasks = yaml(
      'summary:',
      '  description: Summarize {topic}',
      '  agent: writer',
      '  max_retries: 1',
      '  guardrail: The summary names its source',
    );
    const out = await loadCrew({ agents: AGENTS, tasks, llm }).kickoff({ inputs: { topic: 'AI' } });
    expect(out.status).toBe('completed');
    expect(out.raw).toBe('draft 2');
    const judgeCalls = llm.calls.filter((c) => c.agent === 'Writer (guardrail)');
    expect(judgeCalls).toHaveLength(2);
    expect(judgeCalls[0]?.prompt).toBe(
      'Condition: The summary names its source\nTask: Summarize AI\nOutput:\ndraft 1',
    );
    expect(judgeCalls[0]?.system).toMatch(/^You check the output of a task against a condition/);
    const secondDraft = llm.calls.filter((c) => c.agent === 'Writer')[1];
    expect(secondDraft?.prompt).toContain('your previous answer was rejected: it must name a source.');
    expect(out.usage.calls).toBe(4);
  });

  it('fails the task with guardrail_failed when the judge answers neither YES nor NO', async () => {
    const llm = writerAndJudge(['Perhaps.']);
    const tasks = yaml(
      'summary:',
      '  description: Summarize',
      '  agent: writer',
      '  max_retries: 0',
      '  guardrail: Short',
    );
    const out = await loadCrew({ agents: AGENTS, tasks, llm }).kickoff();
    expect(out.status).toBe('failed');
    expect(out.failures.summary).toMatchObject({ code: 'guardrail_failed' });
    expect(out.failures.summary?.message).toContain('answered neither YES nor NO: "Perhaps."');
  });

  it('uses the guardrails option’s function when the text is one of its keys, with no model call', async () => {
    const llm = writerAndJudge([]);
    const seen: string[] = [];
    const short: Guardrail = (output) => {
      seen.push(output.raw);
      return true;
    };
    const tasks = yaml('summary:', '  description: Summarize', '  agent: writer', '  guardrail: short');
    const out = await loadCrew({ agents: AGENTS, tasks, llm, guardrails: { short } }).kickoff();
    expect(out.status).toBe('completed');
    expect(seen).toEqual(['draft 1']);
    expect(llm.calls).toHaveLength(1);
  });

  it('judges with another model when modelGuardrail names one, in code', async () => {
    const judge = createScriptedModel(() => 'YES');
    const writer = new Agent({ role: 'Writer', llm: echoModel() });
    const task = new Task({
      description: 'Write',
      agent: writer,
      guardrail: modelGuardrail('Polite', { llm: judge }),
    });
    const out = await new Crew({ tasks: [task] }).kickoff();
    expect(out.status).toBe('completed');
    expect(judge.calls.map((c) => c.prompt)).toEqual([
      'Condition: Polite\nTask: Write\nOutput:\nWriter: Write',
    ]);
    expect(() => modelGuardrail('  ')).toThrow(/option "condition"/);
  });
});

describe('function_calling_llm in agents.yaml', () => {
  const tasks = yaml('t:', '  description: Do it', '  agent: a');

  it('is accepted when it names a model, and checked as llm is (file and line)', () => {
    const agents = (model: string) => yaml('a:', '  role: A', `  function_calling_llm: ${model}`);
    const crew = loadCrew({
      agents: agents('tools_llm'),
      tasks,
      llm: echoModel(),
      models: { tools_llm: echoModel() },
    });
    expect(crew.agents).toHaveLength(1);
    expect(() => loadCrew({ agents: agents('nope model'), tasks, llm: echoModel() })).toThrow(ConfigError);
    expect(() => loadCrew({ agents: agents('nope model'), tasks, llm: echoModel() })).toThrow(
      /^agents\.yaml line 3: agent "a" names model "nope model"/,
    );
    expect(() => loadCrew({ agents: agents('mistral/mistral-large'), tasks, llm: echoModel() })).toThrow(
      UnknownProviderError,
    );
  });
});
