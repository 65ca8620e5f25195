import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import {
  Agent,
  Crew,
  InvalidOptionError,
  MissingInputError,
  type StatecrewEvent,
  Task,
} from '../../src/index.js';
import { traceRun } from '../../src/otel.js';
import { echoModel } from '../helpers.js';

/** A crew with placeholders in a task's texts and in its agent's persona, and JSON braces besides. */
function crewOf(options: { strictInputs?: boolean; goal?: string } = {}) {
  const llm = echoModel();
  const researcher = new Agent({
    role: '{topic} Researcher',
    goal: 'Find facts about {topic} for {audience}',
    backstory: 'Knows {{jinja}} and {"format": "json"} and { spaced }',
    llm,
  });
  const research = new Task({
    name: 'research_task',
    description: 'Research {topic} in {year}. Answer as {"items": [1, 2]}',
    expectedOutput: 'Notes on {topic}',
    agent: researcher,
  });
  const write = new Task({ name: 'write_task', description: 'Write for {audience}', agent: researcher });
  const crew = new Crew({ tasks: [research, write], ...options });
  return { llm, crew };
}

describe('placeholders no input fills', () => {
  it('are named in metadata.missingInputs with every place they sit, in the order they first appear', async () => {
    const { crew } = crewOf();
    const out = await crew.kickoff({ inputs: { year: 2025 } });
    expect(out.status).toBe('completed');
    expect(out.metadata.missingInputs).toEqual([
      {
        name: 'topic',
        where: [
          { task: 'research_task', field: 'description' },
          { task: 'research_task', field: 'expectedOutput' },
          { agent: '{topic} Researcher', field: 'role' },
          { agent: '{topic} Researcher', field: 'goal' },
        ],
      },
      {
        name: 'audience',
        where: [
          { task: 'write_task', field: 'description' },
          { agent: '{topic} Researcher', field: 'goal' },
        ],
      },
    ]);
  });

  it('leaves {{double}} braces and JSON alone: neither filled nor reported', async () => {
    const { crew, llm } = crewOf();
    const out = await crew.kickoff({ inputs: { topic: 'AI', year: 2025, audience: 'kids' } });
    expect(out.metadata.missingInputs).toBeUndefined();
    const prompt = llm.calls[0]?.prompt ?? '';
    expect(prompt).toContain('Research AI in 2025. Answer as {"items": [1, 2]}');
    expect(prompt).toContain('Knows {{jinja}} and {"format": "json"} and { spaced }');
  });

  it('names the agent by its role with the inputs it has filled, and reports the crew goal', async () => {
    const { crew } = crewOf({ goal: 'A report for {reader}' });
    const out = await crew.kickoff({ inputs: { topic: 'AI', year: 1, audience: 'kids' } });
    expect(out.metadata.missingInputs).toEqual([
      { name: 'reader', where: [{ crew: 'crew', field: 'goal' }] },
    ]);
  });

  it('is said once in a run.warning event right after run.started, with the same list', async () => {
    const { crew } = crewOf();
    const run = crew.run({ inputs: { topic: 'AI', year: 1 } });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    const out = await run.result;
    const warnings = events.filter((e) => e.type === 'run.warning');
    expect(warnings).toHaveLength(1);
    expect(events.map((e) => e.type).slice(0, 2)).toEqual(['run.started', 'run.warning']);
    expect(warnings[0]).toMatchObject({
      type: 'run.warning',
      code: 'missing_input',
      runId: run.id,
      details: { missingInputs: out.metadata.missingInputs },
    });
    expect(warnings[0]?.type === 'run.warning' && warnings[0].message).toContain(
      '{audience} in task "write_task" description, agent "AI Researcher" goal',
    );
  });

  it('is marked on the run span by the OpenTelemetry bridge, with the names', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const { crew } = crewOf();
    const run = crew.run({ inputs: { topic: 'AI' } });
    const traced = traceRun(run, { tracer: provider.getTracer('test') });
    await run.result;
    await traced.done;
    const root = exporter.getFinishedSpans().find((s) => s.name === 'crew sequential');
    expect(root?.events.filter((e) => e.name === 'statecrew.run.warning').map((e) => e.attributes)).toEqual([
      { 'statecrew.warning.code': 'missing_input', 'statecrew.missing_inputs': ['year', 'audience'] },
    ]);
  });

  it('raises no warning when every placeholder is filled', async () => {
    const { crew } = crewOf();
    const run = crew.run({ inputs: { topic: 'AI', year: 1, audience: 'kids' } });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    await run.result;
    expect(events.some((e) => e.type === 'run.warning')).toBe(false);
    expect(events[0]?.type).toBe('run.started');
  });
});

describe('strictInputs', () => {
  it('as a crew option refuses the run with missing_input before any model call', async () => {
    const { crew, llm } = crewOf({ strictInputs: true });
    const error = await crew.kickoff({ inputs: { year: 1 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingInputError);
    expect(error).toMatchObject({ code: 'missing_input', retryable: false });
    const { message, details } = error as MissingInputError;
    expect(message).toContain('{topic} in task "research_task" description');
    expect(message).toContain('{audience} in task "write_task" description');
    expect(message).toContain('inputs ({ topic: …, audience: … }');
    expect(details.missingInputs).toEqual([
      expect.objectContaining({ name: 'topic' }),
      expect.objectContaining({ name: 'audience' }),
    ]);
    expect(llm.calls).toHaveLength(0);
  });

  it('as a kickoff option wins over the crew option, either way', async () => {
    const strict = crewOf({ strictInputs: true });
    const relaxed = await strict.crew.kickoff({ strictInputs: false });
    expect(relaxed.metadata.missingInputs?.map((m) => m.name)).toEqual(['topic', 'year', 'audience']);

    const lenient = crewOf();
    await expect(lenient.crew.kickoff({ strictInputs: true })).rejects.toMatchObject({
      code: 'missing_input',
    });
    expect(lenient.llm.calls).toHaveLength(0);
  });

  it('runs a strict crew whose placeholders are all filled', async () => {
    const { crew } = crewOf({ strictInputs: true });
    const out = await crew.kickoff({ inputs: { topic: 'AI', year: 1, audience: 'kids' } });
    expect(out.status).toBe('completed');
  });

  it('must be a boolean', () => {
    expect(() => crewOf({ strictInputs: 'yes' as unknown as boolean })).toThrow(InvalidOptionError);
    const { crew } = crewOf();
    expect(() => crew.run({ strictInputs: 1 as unknown as boolean })).toThrow(/strictInputs/);
  });
});
