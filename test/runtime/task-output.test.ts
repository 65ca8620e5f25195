import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent, Crew, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';

describe('task outputs: schema, guardrail, time limit', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('parses structured output against outputSchema, retrying when it does not match', async () => {
    const llm = createScriptedModel([
      'not json',
      '{"title": 3}',
      '```json\n{"title": "AI", "points": ["a", "b"]}\n```',
    ]);
    const writer = new Agent({ role: 'Writer', llm });
    const schema = z.object({ title: z.string(), points: z.array(z.string()) });
    const task = new Task({ name: 'outline', description: 'Outline', agent: writer, outputSchema: schema });
    const run = new Crew({ tasks: [task] }).run();
    const failures: string[] = [];
    run.events$.subscribe((e) => e.type === 'node.failed' && failures.push(`${e.code}: ${e.error}`));
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(out.output).toEqual({ title: 'AI', points: ['a', 'b'] });
    expect(out.outputOf(task)?.structured).toEqual({ title: 'AI', points: ['a', 'b'] });
    expect(out.nodeResults.outline).toEqual({ title: 'AI', points: ['a', 'b'] });
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(
      /^output_invalid: Output of task "outline" does not match its schema: \(root\): not JSON/,
    );
    expect(failures[1]).toMatch(/title: .*expected string/i);
    expect(failures[1]).toMatch(/points: /);
  });

  it.each(['sequential', 'graph', 'hierarchical'] as const)(
    'a structured output reaches the next task’s context as JSON, its raw kept as the model wrote it (%s)',
    async (process) => {
      const llm = createScriptedModel((request) =>
        request.prompt.includes('Task: Outline')
          ? 'Here it is:\n```json\n{ "title": "AI",\n  "points": ["a"] }\n```'
          : `read: ${request.context}`,
      );
      const writer = new Agent({ role: 'Writer', llm });
      const schema = z.object({ title: z.string(), points: z.array(z.string()) });
      const outline = new Task({
        name: 'outline',
        description: 'Outline',
        agent: writer,
        outputSchema: schema,
      });
      const draft = new Task({ name: 'draft', description: 'Draft', agent: writer, context: [outline] });
      const manager = {
        allocate: () => 'Writer',
        synthesize: (_: string, outputs: string[]) => outputs.join('|'),
      };
      const out = await new Crew({ tasks: [outline, draft], process, manager }).kickoff();
      expect(out.outputOf(draft)?.raw).toBe('read: {"title":"AI","points":["a"]}');
      expect(out.outputOf(outline)?.raw).toMatch(/^Here it is:/);
      if (process === 'hierarchical')
        expect(out.raw).toBe('{"title":"AI","points":["a"]}|read: {"title":"AI","points":["a"]}');
    },
  );

  it('retries when the guardrail rejects and reports its reason when it keeps rejecting', async () => {
    const llm = createScriptedModel(['short', 'a much longer answer']);
    const writer = new Agent({ role: 'Writer', llm });
    const guarded = new Task({
      name: 'guarded',
      description: 'Write',
      agent: writer,
      guardrail: (output) => output.raw.length > 10 || `too short: ${output.raw.length} chars`,
    });
    const out = await new Crew({ tasks: [guarded] }).kickoff();
    expect(out.raw).toBe('a much longer answer');
    expect(out.nodes[0]?.attempts).toBe(2);

    const other = new Agent({ role: 'Writer', llm: createScriptedModel(['anything']) });
    const stubborn = new Task({
      name: 'stubborn',
      description: 'Write',
      agent: other,
      maxRetries: 0,
      guardrail: () => false,
    });
    const rejected = await new Crew({ tasks: [stubborn] }).kickoff();
    expect(rejected.errors.stubborn).toBe(
      'Guardrail of task "stubborn" rejected every attempt (1); the last reason: no reason given (guardrail_failed)',
    );
  });

  it('fails an attempt that outlives timeoutMs and aborts its model call', async () => {
    vi.useFakeTimers();
    const llm = createScriptedModel(() => () => new Promise<string>(() => {}));
    const slow = new Agent({ role: 'Slow', llm, timeoutMs: 5_000 });
    const task = new Task({
      name: 'slow',
      description: 'wait',
      agent: slow,
      maxRetries: 1,
      retryDelayMs: 0,
      timeoutMs: 1_000,
    });
    const result = new Crew({ tasks: [task] }).kickoff();
    await vi.advanceTimersByTimeAsync(999);
    expect(llm.aborted).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(llm.aborted).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    const out = await result;
    expect(llm.aborted).toHaveLength(2);
    expect(out.status).toBe('failed');
    expect(out.errors.slow).toBe('Task "slow" did not finish within 1000 ms (task_timeout)');
    expect(out.nodes[0]?.attempts).toBe(2);
  });
});
