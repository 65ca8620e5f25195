import { describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, InvalidInputsError, Task } from '../../src/index.js';
import { echoModel } from '../helpers.js';

function crew() {
  const llm = echoModel();
  const writer = new Agent({ role: 'Writer', llm });
  return {
    llm,
    crew: new Crew({ tasks: [new Task({ description: 'Write about {topic}', agent: writer })] }),
  };
}

const refused: [string, unknown, string][] = [
  ['a string', 'hey', '"hey"'],
  ['an array', ['topic', 'AI'], 'an array'],
  ['a number', 42, 'number 42'],
  ['null', null, 'null'],
  ['a class instance', new Date(0), 'an object'],
];

describe('run inputs', () => {
  it.each(refused)(
    'refuses %s for a crew with invalid_inputs before any model call',
    async (_, inputs, named) => {
      const { llm, crew: c } = crew();
      const error = await c.kickoff({ inputs: inputs as Record<string, unknown> }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidInputsError);
      expect(error).toMatchObject({ code: 'invalid_inputs' });
      expect((error as Error).message).toContain(named);
      expect(llm.calls).toHaveLength(0);
    },
  );

  it.each(refused)(
    'refuses %s for a flow with invalid_inputs before any step runs',
    async (_, inputs, named) => {
      let ran = false;
      const flow = createFlow({ name: 'f', initialState: { topic: '' } }).start('s', () => {
        ran = true;
      });
      const error = await flow
        .kickoff({ inputs: inputs as Record<string, unknown> })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'invalid_inputs' });
      expect((error as Error).message).toMatch(/^Flow "f" kickoff: inputs must be a plain object/);
      expect((error as Error).message).toContain(named);
      expect(ran).toBe(false);
    },
  );

  it('takes a plain object, an object without a prototype, and no inputs at all', async () => {
    const { llm, crew: c } = crew();
    await c.kickoff({ inputs: { topic: 'AI' } });
    await c.kickoff({
      inputs: Object.assign(Object.create(null) as Record<string, unknown>, { topic: 'ML' }),
    });
    await c.kickoff();
    expect(llm.calls.map((call) => call.prompt.split('Task: ')[1])).toEqual([
      'Write about AI',
      'Write about ML',
      'Write about {topic}',
    ]);
  });
});

describe('inputs a placeholder shows', () => {
  it('fills a placeholder with an object or a list as JSON, not [object Object]', async () => {
    const llm = echoModel();
    const analyst = new Agent({ role: 'Analyst', llm });
    const task = new Task({ description: 'Summarize {people} for {meta}', agent: analyst });
    await new Crew({ tasks: [task] }).kickoff({
      inputs: { people: [{ name: 'Alice' }], meta: { year: 2026, tags: ['a', 'b'] } },
    });
    expect(llm.calls[0]?.prompt).toContain(
      'Task: Summarize [{"name": "Alice"}] for {"year": 2026, "tags": ["a", "b"]}',
    );
  });

  it('refuses an input no placeholder can show, named with its type, before any model call', async () => {
    const { llm, crew: c } = crew();
    const error = await c
      .kickoff({ inputs: { topic: 'AI', seen: { ids: new Set([1]) } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputsError);
    expect(error).toMatchObject({
      code: 'invalid_inputs',
      details: { key: 'seen', path: 'inputs.seen.ids', type: 'a Set' },
    });
    expect((error as Error).message).toMatch(
      /^Crew "crew" kickoff: input "seen" holds a Set at inputs\.seen\.ids/,
    );
    expect(llm.calls).toHaveLength(0);
  });
});
