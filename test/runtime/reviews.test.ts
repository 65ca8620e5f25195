import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Crew, ExecutionDocument, MemoryStore, type Policy, Task } from '../../src/index.js';
import { createScriptedModel, type ScriptedModel } from '../../src/testing.js';
import { loadCrew } from '../../src/yaml/load-crew.js';
import { taskLine } from '../helpers.js';

const FEEDBACK = /Feedback: your previous answer was rejected: (.*)$/m;

/** A writer's model: a draft of its task, revised as the last feedback it was told asks. */
function writerModel(): ScriptedModel {
  return createScriptedModel((request) => {
    const task = taskLine(request.prompt).slice('Task: '.length);
    const feedback = FEEDBACK.exec(request.prompt)?.[1];
    return feedback === undefined ? `${task} draft` : `${task} draft, ${feedback}`;
  });
}

function reviewedCrew(store: MemoryStore, llm: ScriptedModel, maxRetries?: number) {
  const writer = new Agent({ role: 'Writer', llm });
  const draft = new Task({ name: 'draft', description: 'post', agent: writer, humanInput: true, maxRetries });
  const publish = new Task({ name: 'publish', description: 'publish', agent: writer });
  return new Crew({ name: 'blog', tasks: [draft, publish], store });
}

describe('human review of a task (humanInput)', () => {
  it('pauses after the answer with the output to review; its dependents wait', async () => {
    const store = new MemoryStore();
    const out = await reviewedCrew(store, writerModel()).kickoff({ executionId: 'b1' });
    expect(out.status).toBe('paused');
    expect(out.pending).toEqual([
      {
        kind: 'review',
        nodeId: 'draft',
        output: {
          name: 'draft',
          description: 'post',
          expectedOutput: '',
          agent: 'Writer',
          raw: 'post draft',
        },
      },
    ]);
    expect(out.nodes[0]).toMatchObject({ nodeId: 'draft', status: 'paused', attempts: 1 });
    expect(out.metadata.blocked).toEqual(['publish']);
    expect(await store.readRun('b1')).toMatchObject({ status: 'paused', lease: null });
  });

  it('sent back once with feedback (the next prompt carries it), then approved without another call', async () => {
    const store = new MemoryStore();
    await reviewedCrew(store, writerModel()).kickoff({ executionId: 'b2' });
    const again = writerModel();
    const out2 = await reviewedCrew(store, again).resume('b2', {
      reviews: { draft: { approve: false, feedback: 'shorter please' } },
    });
    expect(again.calls).toHaveLength(1);
    expect(again.calls[0]?.prompt).toContain('Feedback: your previous answer was rejected: shorter please');
    expect(out2.status).toBe('paused');
    expect(out2.pending).toMatchObject([
      { kind: 'review', nodeId: 'draft', output: { raw: 'post draft, shorter please' } },
    ]);
    expect(out2.nodes[0]).toMatchObject({ status: 'paused', attempts: 2 });
    const last = writerModel();
    const out3 = await reviewedCrew(store, last).resume('b2', { reviews: { draft: { approve: true } } });
    expect(out3.status).toBe('completed');
    expect(out3.tasksOutput.map((t) => t.raw)).toEqual(['post draft, shorter please', 'publish draft']);
    // Only `publish` asked the model: the approved draft completed with the stored output.
    expect(last.calls.map((c) => taskLine(c.prompt))).toEqual(['Task: publish']);
    expect(last.calls[0]?.context).toBe('post draft, shorter please');
    const draft = out3.nodes.find((n) => n.nodeId === 'draft');
    expect(draft).toMatchObject({ status: 'completed', attempts: 2 });
    expect(draft?.usage.calls).toBe(2);
    const doc = await ExecutionDocument.fromStore(store, 'b2');
    expect(doc?.status).toBe('completed');
  });

  it('refusals past the last attempt fail the task with review_rejected', async () => {
    const store = new MemoryStore();
    await reviewedCrew(store, writerModel(), 1).kickoff({ executionId: 'b3' });
    const no = { reviews: { draft: { approve: false as const, feedback: 'no' } } };
    const out2 = await reviewedCrew(store, writerModel(), 1).resume('b3', no);
    expect(out2.status).toBe('paused');
    const llm = writerModel();
    const out3 = await reviewedCrew(store, llm, 1).resume('b3', no);
    expect(llm.calls).toHaveLength(0);
    expect(out3.status).toBe('failed');
    expect(out3.failures.draft).toMatchObject({ code: 'review_rejected', retryable: false });
    expect(out3.errors.draft).toBe(
      'Task "draft": a human rejected its output after its last attempt (2): no (review_rejected)',
    );
    expect(out3.nodes[0]).toMatchObject({ status: 'failed', attempts: 2 });
    expect(out3.metadata.blocked).toEqual(['publish']);
    expect(await store.readRun('b3')).toMatchObject({ status: 'failed' });
  });

  it('reviews what the schema and the guardrails accepted, structured value included', async () => {
    const store = new MemoryStore();
    const replies = ['{"title": ""}', '{"title": "Hello"}'];
    const llm = createScriptedModel(replies);
    const writer = new Agent({ role: 'Writer', llm });
    const task = new Task({
      name: 'title',
      description: 'a title',
      agent: writer,
      outputSchema: z.object({ title: z.string() }),
      guardrail: (output) => ((output.structured as { title: string }).title === '' ? 'empty title' : true),
      retryDelayMs: 0,
      humanInput: true,
    });
    const crew = new Crew({ tasks: [task], store });
    const out = await crew.kickoff({ executionId: 'b4' });
    expect(llm.calls).toHaveLength(2);
    expect(out.pending).toMatchObject([
      {
        kind: 'review',
        nodeId: 'title',
        output: { raw: '{"title": "Hello"}', structured: { title: 'Hello' } },
      },
    ]);
    const done = await crew.resume('b4', { reviews: { title: { approve: true } } });
    expect(done.output).toEqual({ title: 'Hello' });
    expect(done.nodes[0]?.attempts).toBe(2);
  });

  it('a policy agent is reviewed too; answers that do not fit are refused', async () => {
    const store = new MemoryStore();
    const policy: Policy = (prompt) => (FEEDBACK.test(prompt) ? 'better' : 'first');
    const task = new Task({
      name: 'x',
      description: 'x',
      agent: new Agent({ role: 'P', llm: policy }),
      humanInput: true,
    });
    const crew = new Crew({ tasks: [task], store });
    await expect(new Crew({ tasks: [task] }).kickoff()).rejects.toMatchObject({ code: 'store_required' });
    await crew.kickoff({ executionId: 'b5' });
    await expect(crew.resume('b5', { reviews: { x: { approve: false } as never } })).rejects.toMatchObject({
      code: 'invalid_option',
      details: { option: 'reviews.x' },
    });
    await expect(crew.resume('b5', { approvals: { 'x.1.1.0': { approve: true } } })).rejects.toThrow(
      /does not wait for approval; the run waits for the review of x/,
    );
    const out = await crew.resume('b5', { reviews: { x: { approve: false, feedback: 'more' } } });
    expect(out.pending).toMatchObject([{ output: { raw: 'better' } }]);
  });

  it('YAML: human_input: true on a task', () => {
    const crew = loadCrew({
      agents: 'writer:\n  role: Writer\n',
      tasks: 'draft:\n  description: post\n  agent: writer\n  human_input: true\n',
      llm: writerModel(),
    });
    expect(crew.tasks[0]?.humanInput).toBe(true);
  });
});
