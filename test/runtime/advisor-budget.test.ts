import { describe, expect, it } from 'vitest';
import { Agent, Crew, type Model, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { taskLine } from '../helpers.js';

/** A model with a price-table id whose every call spends 10 tokens (6 in, 4 out). */
function pricedModel(id: string, answer: (task: string) => string): Model & { asked: string[] } {
  const asked: string[] = [];
  const base = createScriptedModel((request) => {
    const task = taskLine(request.prompt).slice('Task: '.length);
    asked.push(task);
    return { text: answer(task), usage: { inputTokens: 6, outputTokens: 4 } };
  });
  return { id, asked, generate: (request) => base.generate(request) };
}

const prices = {
  'test:manager': { inputPerMTok: 1_000, outputPerMTok: 2_000 },
  'test:worker': { inputPerMTok: 100, outputPerMTok: 200 },
  'test:judge': { inputPerMTok: 10_000, outputPerMTok: 10_000 },
};

function hierarchical(budget?: { maxTokens?: number; maxCostUsd?: number }) {
  const managerLlm = pricedModel('test:manager', (task) =>
    task.startsWith('Synthesize') ? 'merged' : 'Writer',
  );
  const workerLlm = pricedModel('test:worker', (task) => `done: ${task}`);
  const crew = new Crew({
    agents: [new Agent({ role: 'Writer', llm: workerLlm })],
    tasks: ['a', 'b', 'c'].map((name) => new Task({ name, description: `Write ${name}` })),
    process: 'hierarchical',
    manager: new Agent({ role: 'Manager', llm: managerLlm }),
    prices,
    ...(budget === undefined ? {} : { budget }),
  });
  return { crew, managerLlm, workerLlm };
}

describe('the manager and the judge spend from the run like the workers', () => {
  it('prices the manager’s calls apart from the workers’, each from its own model’s price', async () => {
    const { crew } = hierarchical();
    const out = await crew.kickoff();
    expect(out.status).toBe('completed');
    // 4 manager calls (3 allocations + synthesis) and 3 worker calls, 6 in and 4 out each.
    expect(out.usage.manager).toMatchObject({ calls: 4, totalTokens: 40 });
    expect(out.usage.workers).toMatchObject({ calls: 3, totalTokens: 30 });
    const managerCost = (4 * (6 * 1_000 + 4 * 2_000)) / 1_000_000;
    const workerCost = (3 * (6 * 100 + 4 * 200)) / 1_000_000;
    expect(out.usage.manager.costUsd).toBeCloseTo(managerCost, 12);
    expect(out.usage.workers.costUsd).toBeCloseTo(workerCost, 12);
    expect(out.usage.costUsd).toBeCloseTo(managerCost + workerCost, 12);
  });

  it('stops before an allocation the budget cannot pay: that call failed, the rest blocked, partial', async () => {
    // allocate a (10), a (20), allocate b (30), b (40): the allocation of c would start at 40 ≥ 35.
    const { crew, managerLlm, workerLlm } = hierarchical({ maxTokens: 35 });
    const out = await crew.kickoff();
    expect(out.status).toBe('partial');
    expect(managerLlm.asked).toHaveLength(2);
    expect(workerLlm.asked).toEqual(['Write a', 'Write b']);
    expect(out.tasksOutput.map((t) => t.name)).toEqual(['a', 'b']);
    expect(out.failures['allocate:c']).toMatchObject({ code: 'budget_exceeded', retryable: false });
    expect(out.metadata.blocked).toEqual(['c']);
    expect(out.raw).toBe('done: Write b');
    expect(out.usage.totalTokens).toBe(40);
  });

  it('stops before a synthesis the budget cannot pay: the tasks’ work is kept, the raw is the last task’s', async () => {
    // Three allocations and three tasks spend 60 tokens; the synthesis would start at 60.
    const { crew, managerLlm } = hierarchical({ maxTokens: 60 });
    const out = await crew.kickoff();
    expect(out.status).toBe('partial');
    expect(managerLlm.asked).toHaveLength(3);
    expect(out.tasksOutput).toHaveLength(3);
    expect(out.failures.synthesize?.code).toBe('budget_exceeded');
    expect(out.raw).toBe('done: Write c');
    expect(out.metadata.blocked).toEqual([]);
  });

  it('a budget in dollars counts the manager’s priced calls', async () => {
    // One manager call costs $0.014: after the first allocation and task ($0.0154) the next is refused.
    const { crew, workerLlm } = hierarchical({ maxCostUsd: 0.015 });
    const out = await crew.kickoff();
    expect(workerLlm.asked).toEqual(['Write a']);
    expect(out.failures['allocate:b']?.code).toBe('budget_exceeded');
    expect(out.metadata.blocked).toEqual(['b', 'c']);
  });

  it('prices the judge’s verdicts, and stops a loop before a verdict the budget cannot pay', async () => {
    const judge = pricedModel('test:judge', () => 'NO');
    const worker = pricedModel('test:worker', (task) => `draft of ${task}`);
    const loopCrew = (budget?: { maxTokens: number }) =>
      new Crew({
        tasks: [
          new Task({ name: 'draft', description: 'Draft it', agent: new Agent({ role: 'W', llm: worker }) }),
        ],
        process: 'loop',
        loop: { condition: 'it is good', judge, maxIterations: 3 },
        prices,
        ...(budget === undefined ? {} : { budget }),
      });
    const full = await loopCrew().kickoff();
    expect(full.usage.manager).toMatchObject({ calls: 3, totalTokens: 30 });
    expect(full.usage.manager.costUsd).toBeCloseTo((3 * (10 * 10_000)) / 1_000_000, 12);

    // draft#1 (10), verdict 1 (20), draft#2 (30): verdict 2 would start at 30 ≥ 25.
    const out = await loopCrew({ maxTokens: 25 }).kickoff();
    expect(out.status).toBe('partial');
    expect(out.tasksOutput.map((t) => t.name)).toEqual(['draft', 'draft']);
    expect(out.failures['judge:2']).toMatchObject({ code: 'budget_exceeded' });
    expect(out.metadata).toMatchObject({ iterations: 2, conditionMet: false });
    expect(out.raw).toBe('draft of Draft it');
  });
});
