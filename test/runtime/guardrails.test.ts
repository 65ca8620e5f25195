import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Crew, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';

describe('guardrails', () => {
  it('apply a list in order; a rejection re-runs the agent with the reason as feedback, then it succeeds', async () => {
    const llm = createScriptedModel(['draft without sources', 'draft with sources [1]']);
    const writer = new Agent({ role: 'Writer', llm, retryDelayMs: 0 });
    const seen: string[] = [];
    const task = new Task({
      name: 'write',
      description: 'Write the piece',
      agent: writer,
      maxRetries: 2,
      guardrail: [
        (output) => ({ ok: true, value: output.raw.trim().toUpperCase() }),
        (output) => {
          seen.push(output.raw);
          return output.raw.includes('[1]') ? { ok: true } : { ok: false, reason: 'cite a source' };
        },
      ],
    });
    const out = await new Crew({ tasks: [task] }).kickoff();
    expect(out.status).toBe('completed');
    expect(out.raw).toBe('DRAFT WITH SOURCES [1]');
    expect(seen).toEqual(['DRAFT WITHOUT SOURCES', 'DRAFT WITH SOURCES [1]']);
    expect(llm.calls[0]?.prompt).not.toContain('Feedback');
    expect(llm.calls[1]?.prompt).toContain('Feedback: your previous answer was rejected: cite a source');
    expect(llm.calls[1]?.messages[0]?.content).toContain('cite a source');
  });

  it('fail with guardrail_failed naming the last reason once no attempt remains', async () => {
    let n = 0;
    const llm = createScriptedModel(() => 'same answer');
    const writer = new Agent({ role: 'Writer', llm, retryDelayMs: 0 });
    const task = new Task({
      name: 'write',
      description: 'x',
      agent: writer,
      maxRetries: 1,
      guardrail: () => {
        n += 1;
        return { ok: false, reason: `not good ${n}` };
      },
    });
    const out = await new Crew({ tasks: [task] }).kickoff();
    expect(llm.calls).toHaveLength(2);
    expect(out.failures.write).toMatchObject({ code: 'guardrail_failed', retryable: false });
    expect(out.errors.write).toMatch(/the last reason: not good 2/);
  });

  it('refuse a guardrail that is not a function (invalid_option)', () => {
    expect(() => new Task({ description: 'x', guardrail: ['nope'] as never })).toThrow(/option "guardrail"/);
  });

  it('a text a guardrail puts in place of a structured answer is read by the schema again, as CrewAI does', async () => {
    const llm = createScriptedModel(['{"n": 1}', '{"n": 3}']);
    const counter = new Agent({ role: 'Counter', llm, retryDelayMs: 0 });
    const replaced: unknown[] = [];
    const task = new Task({
      name: 'count',
      description: 'Count',
      agent: counter,
      maxRetries: 1,
      outputSchema: z.object({ n: z.number() }),
      guardrail: [
        (output) => ({ ok: true, value: output.raw.replace('1', '2') }),
        (output) => {
          replaced.push(output.structured);
          return { ok: true };
        },
      ],
    });
    const out = await new Crew({ tasks: [task] }).kickoff();
    expect(out.raw).toBe('{"n": 2}');
    expect(out.tasksOutput[0]?.structured).toEqual({ n: 2 });
    expect(replaced).toEqual([{ n: 2 }]);

    // A text the schema cannot read fails the attempt as the model's own answer would.
    const broken = new Task({
      ...{ name: 'count', description: 'Count', agent: counter, maxRetries: 0 },
      outputSchema: z.object({ n: z.number() }),
      guardrail: () => ({ ok: true, value: 'not json' }),
    });
    const failed = await new Crew({ tasks: [broken] }).kickoff();
    expect(failed.status).toBe('failed');
    expect(failed.failures.count?.code).toBe('output_invalid');
  });
});
