import { describe, expect, it } from 'vitest';
import { Agent, Crew, MemoryStore, StatecrewError, Task } from '../../src/index.js';
import { fastRead } from '../../src/options/fast-read.js';
import type { OptionsSchema } from '../../src/options/parse.js';
import { agentOptionsSchema } from '../../src/runtime/crew/agent-options.js';
import { crewOptionsSchema } from '../../src/runtime/crew/crew-options.js';
import { runOptionsSchema } from '../../src/runtime/crew/run-options.js';
import { taskOptionsSchema } from '../../src/runtime/crew/task.js';

const agent = new Agent({ role: 'Writer', llm: () => 'ok' });
const root = new Task({ name: 'root', description: 'r', agent });

/** Options objects each schema accepts: present, absent and given-as-undefined options. */
const accepted: [string, OptionsSchema, unknown[]][] = [
  [
    'task',
    taskOptionsSchema,
    [
      { description: 'd' },
      { name: 'n', description: 'd', agent, context: [root], maxRetries: 0, humanInput: true },
      { description: 'd', context: undefined, tools: undefined, outputFile: undefined },
      { description: 'd', expectedOutput: 'x', guardrail: [() => true], timeoutMs: 5 },
    ],
  ],
  [
    'agent',
    agentOptionsSchema,
    [
      { role: 'r', llm: () => 'x' },
      { role: 'r', llm: () => 'x', goal: 'g', maxIter: 3, temperature: 0.5 },
    ],
  ],
  ['crew', crewOptionsSchema, [{ tasks: [root] }, { tasks: [root], process: 'graph', maxConcurrency: 9 }]],
  ['run', runOptionsSchema, [{}, { inputs: { a: 1 }, store: new MemoryStore() }]],
];

/** Options each schema refuses, or that zod alone reads. */
const refused: [string, OptionsSchema, unknown[]][] = [
  [
    'task',
    taskOptionsSchema,
    [
      {},
      { description: '' },
      { description: 'd', expected_output: 'x' },
      { description: 'd', maxRetries: -1 },
      { description: 'd', guardrail: ['no'] },
      Object.assign(Object.create({ inherited: 1 }), { description: 'd' }),
      null,
      [],
      'd',
    ],
  ],
  [
    'agent',
    agentOptionsSchema,
    [{ role: 'r' }, { role: 'r', llm: 42 }, { role: 'r', llm: () => 'x', maxIter: 0 }],
  ],
  [
    'crew',
    crewOptionsSchema,
    [{ tasks: [{}] }, { tasks: [root], process: 'nope' }, { tasks: [root], proces: 'x' }],
  ],
];

describe('options read without zod’s objects per option', () => {
  for (const [name, schema, inputs] of accepted) {
    it(`reads accepted ${name} options to exactly what zod's parse gives, defaults fresh`, () => {
      for (const input of inputs) {
        const fast = fastRead(schema, input);
        const parsed = schema.safeParse(input);
        expect(parsed.success).toBe(true);
        expect(fast).toStrictEqual(parsed.data);
        expect(Object.keys(fast as object)).toEqual(Object.keys(parsed.data as object));
      }
    });
  }

  for (const [name, schema, inputs] of refused) {
    it(`leaves refused ${name} options to zod's parse`, () => {
      for (const input of inputs) expect(fastRead(schema, input)).toBeUndefined();
    });
  }

  it('gives each read its own copy of a default (a task granted no tools gets a list of its own)', () => {
    const first = fastRead(taskOptionsSchema, { description: 'd' }) as { tools: unknown[] };
    const second = fastRead(taskOptionsSchema, { description: 'd' }) as { tools: unknown[] };
    expect(first.tools).toEqual([]);
    expect(first.tools).not.toBe(second.tools);
  });

  it('still refuses bad options with the same code and message', () => {
    const refuse = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        if (error instanceof StatecrewError) return [error.code, error.message];
      }
      return undefined;
    };
    expect(refuse(() => new Task({ name: 't', description: 'd', maxRetries: -1 }))).toEqual([
      'invalid_option',
      'Task "t": option "maxRetries" must be an integer ≥ 0, got number -1 (invalid_option)',
    ]);
    expect(refuse(() => new Task({ description: '' }))).toEqual([
      'invalid_option',
      'Task: option "description" must be a non-empty string, got "" (invalid_option)',
    ]);
    expect(refuse(() => new Crew({ tasks: [root], maxConcurrency: 0 }))?.[0]).toBe('invalid_option');
  });
});

describe('a crew indexed once, its plan reading tasks through it', () => {
  it('finds planned tasks by node id as a map of them would, in the crew order', async () => {
    const { planCrew } = await import('../../src/runtime/crew/plan.js');
    const a = new Task({ name: 'a', description: 'A', agent });
    const b = new Task({ description: 'B', agent, context: [a] });
    const c = new Task({ name: 'c', description: 'C', agent, context: [a] });
    const crew = new Crew({ tasks: [a, b, c], process: 'graph' });
    const plan = planCrew(crew, {});
    const expected = new Map(plan.tasks.map((t) => [t.nodeId, t]));
    expect(plan.byNodeId.size).toBe(3);
    expect([...plan.byNodeId]).toEqual([...expected]);
    expect([...plan.byNodeId.keys()]).toEqual(['a', 'task-2', 'c']);
    expect([...plan.byNodeId.values()]).toEqual(plan.tasks);
    expect(plan.byNodeId.get('task-2')?.task).toBe(b);
    expect(plan.byNodeId.has('b')).toBe(false);
    const seen: string[] = [];
    plan.byNodeId.forEach((t, id) => {
      seen.push(`${id}:${t.index}`);
    });
    expect(seen).toEqual(['a:0', 'task-2:1', 'c:2']);
    // Two tasks reading the same one task share one list, which says the same as before.
    expect(plan.tasks[1]?.contextIds).toEqual(['a']);
    expect(plan.tasks[1]?.contextPositions).toEqual([0]);
    expect(plan.tasks[2]?.contextIds).toBe(plan.tasks[1]?.contextIds);
  });

  it('still refuses a node id given twice, naming its positions, and a context task of no crew', () => {
    const one = new Task({ name: 'x', description: 'A', agent });
    const two = new Task({ name: 'y', description: 'B', agent });
    const three = new Task({ name: 'x', description: 'C', agent });
    expect(() => new Crew({ tasks: [one, two, three] })).toThrow(
      expect.objectContaining({
        code: 'duplicate_task',
        details: expect.objectContaining({ positions: [1, 3] }),
      }),
    );
    const stranger = new Task({ name: 's', description: 'S', agent });
    const reader = new Task({ name: 'r', description: 'R', agent, context: [one, stranger] });
    expect(() => new Crew({ tasks: [one, reader], process: 'graph' })).toThrow(
      expect.objectContaining({ code: 'unknown_context_task' }),
    );
  });
});
