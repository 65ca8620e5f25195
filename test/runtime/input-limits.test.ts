import { describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, InvalidInputsError, MemoryStore, Task } from '../../src/index.js';
import {
  checkInputLimits,
  DEFAULT_MAX_INPUT_BYTES,
  MAX_INPUT_DEPTH,
} from '../../src/runtime/run/input-limits.js';
import { echoModel } from '../helpers.js';

const MB = 1024 * 1024;

/** An object `levels` deep (itself the first): `{ a: { a: … { leaf: true } } }`. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < levels; i += 1) value = { a: value };
  return value;
}

/** A crew of one task over `{topic}`, its model and its store. */
function crew() {
  const llm = echoModel();
  const writer = new Agent({ role: 'Writer', llm });
  const store = new MemoryStore();
  const tasks = [new Task({ name: 'write', description: 'Write about {topic}', agent: writer })];
  return { llm, store, crew: new Crew({ tasks, store }) };
}

/** A flow of one step, whether it ran, and its store. */
function flow() {
  const ran: string[] = [];
  const store = new MemoryStore();
  const f = createFlow({ name: 'f', initialState: {}, store }).start('s', () => {
    ran.push('s');
  });
  return { ran, store, flow: f };
}

/** What `attempt` rejected with. */
async function refusal(attempt: Promise<unknown>): Promise<unknown> {
  return attempt.then(
    () => new Error('it was not refused'),
    (error: unknown) => error,
  );
}

const big = () => ({ topic: 'AI', text: 'x'.repeat(20 * MB) });
const rows = () => ({
  topic: 'AI',
  rows: Array.from({ length: 400_000 }, (_, i) => ({ id: i, name: `row ${i}`, tags: ['a', 'b'] })),
});

describe('inputs over the size limit', () => {
  it.each([
    ['a 20 MB string', big],
    ['400,000 rows (18 MB of JSON)', rows],
  ])(
    'refuses %s to a crew with invalid_inputs naming maxInputBytes, before any call or write',
    async (_, inputs) => {
      const { llm, store, crew: c } = crew();
      const error = await refusal(c.kickoff({ inputs: inputs() }));
      expect(error).toBeInstanceOf(InvalidInputsError);
      expect(error).toMatchObject({
        code: 'invalid_inputs',
        details: { where: 'Crew kickoff', limit: 'maxInputBytes', maxInputBytes: DEFAULT_MAX_INPUT_BYTES },
      });
      expect((error as Error).message).toContain(
        `larger than ${DEFAULT_MAX_INPUT_BYTES} bytes as JSON (maxInputBytes)`,
      );
      expect(llm.calls).toHaveLength(0);
      expect(await store.listRuns()).toEqual([]);
    },
  );

  it.each([
    ['a 20 MB string', big],
    ['400,000 rows (18 MB of JSON)', rows],
  ])(
    'refuses %s to a flow with invalid_inputs naming maxInputBytes, before any step or write',
    async (_, inputs) => {
      const { ran, store, flow: f } = flow();
      const error = await refusal(f.kickoff({ inputs: inputs() }));
      expect(error).toMatchObject({
        code: 'invalid_inputs',
        details: {
          where: 'Flow "f" kickoff',
          limit: 'maxInputBytes',
          maxInputBytes: DEFAULT_MAX_INPUT_BYTES,
        },
      });
      expect(ran).toEqual([]);
      expect(await store.listRuns()).toEqual([]);
    },
  );

  it('takes inputs within a run’s maxInputBytes and refuses them past it', async () => {
    const inputs = { topic: 'AI', text: 'é'.repeat(1000) }; // 2,000 bytes of UTF-8
    const c = crew();
    await expect(c.crew.kickoff({ inputs, maxInputBytes: 2100 })).resolves.toMatchObject({
      status: 'completed',
    });
    const error = await refusal(c.crew.kickoff({ inputs, maxInputBytes: 1900 }));
    expect(error).toMatchObject({ code: 'invalid_inputs', details: { maxInputBytes: 1900 } });
    const f = flow();
    await expect(f.flow.kickoff({ inputs, maxInputBytes: 2100 })).resolves.toMatchObject({
      status: 'completed',
    });
    await expect(refusal(f.flow.kickoff({ inputs, maxInputBytes: 1900 }))).resolves.toMatchObject({
      code: 'invalid_inputs',
    });
  });

  it('takes a 20 MB input when maxInputBytes is Infinity', async () => {
    const { crew: c } = crew();
    await expect(
      c.kickoff({ inputs: big(), maxInputBytes: Number.POSITIVE_INFINITY }),
    ).resolves.toMatchObject({
      status: 'completed',
    });
  });

  it('refuses a maxInputBytes that is not a whole number ≥ 1 or Infinity (invalid_option)', async () => {
    for (const maxInputBytes of [0, -1, 1.5, Number.NaN]) {
      const error = await refusal(crew().crew.kickoff({ inputs: { topic: 'AI' }, maxInputBytes }));
      expect(error).toMatchObject({
        code: 'invalid_option',
        details: { option: 'maxInputBytes', expected: 'a whole number of bytes ≥ 1, or Infinity' },
      });
    }
  });
});

describe('inputs nested too deep', () => {
  it('refuses inputs 5,000 levels deep to a crew and a flow with invalid_inputs naming the depth and where, storing nothing', async () => {
    const c = crew();
    const crewError = await refusal(c.crew.kickoff({ inputs: { topic: 'AI', deep: nested(5000) } }));
    expect(crewError).toBeInstanceOf(InvalidInputsError);
    expect(crewError).toMatchObject({ details: { limit: 'maxInputDepth', maxDepth: MAX_INPUT_DEPTH } });
    expect((crewError as Error).message).toMatch(
      /^Crew kickoff: inputs nest deeper than 100 levels, at inputs\.deep\.a\.a\.a.*… \(invalid_inputs\)$/,
    );
    expect(c.llm.calls).toHaveLength(0);
    expect(await c.store.listRuns()).toEqual([]);
    const f = flow();
    const flowError = await refusal(f.flow.kickoff({ inputs: { deep: nested(5000) } }));
    expect(flowError).toMatchObject({ code: 'invalid_inputs', details: { limit: 'maxInputDepth' } });
    expect(f.ran).toEqual([]);
    expect(await f.store.listRuns()).toEqual([]);
  });

  it('takes inputs 100 levels deep (the inputs object the first) and refuses 101, naming the whole path', async () => {
    const c = crew();
    await expect(c.crew.kickoff({ inputs: nested(MAX_INPUT_DEPTH) })).resolves.toMatchObject({
      status: 'completed',
    });
    const error = await refusal(c.crew.kickoff({ inputs: nested(MAX_INPUT_DEPTH + 1) }));
    expect(error).toMatchObject({
      code: 'invalid_inputs',
      details: { path: `inputs${'.a'.repeat(MAX_INPUT_DEPTH)}` },
    });
  });
});

describe('how inputs are measured', () => {
  const shapes: [string, Record<string, unknown>][] = [
    ['a long string', { text: 'x'.repeat(10_000) }],
    [
      'many small objects',
      { rows: Array.from({ length: 500 }, (_, i) => ({ id: i, name: `row ${i}`, ok: true })) },
    ],
    ['numbers and nulls', { values: Array.from({ length: 2000 }, (_, i) => (i % 3 === 0 ? null : i * 1.5)) }],
    ['text that is not ASCII', { text: '日本語のテキスト'.repeat(500) }],
  ];

  it.each(shapes)('measures %s within 5%% of its JSON form in UTF-8', (_, inputs) => {
    const bytes = Buffer.byteLength(JSON.stringify(inputs), 'utf8');
    expect(() => checkInputLimits('test', inputs, Math.ceil(bytes * 1.05))).not.toThrow();
    expect(() => checkInputLimits('test', inputs, Math.floor(bytes * 0.95))).toThrow(InvalidInputsError);
  });

  it('measures a cycle once and goes on; a crew then refuses it, as no placeholder can show it', async () => {
    const inputs: Record<string, unknown> = { topic: 'AI', text: 'x'.repeat(500) };
    inputs.self = inputs;
    expect(() => checkInputLimits('test', inputs, 1000)).not.toThrow();
    const { crew: c } = crew();
    await expect(c.kickoff({ inputs, maxInputBytes: 1000 })).rejects.toMatchObject({
      code: 'invalid_inputs',
      details: { key: 'self', type: 'a circular reference' },
    });
  });

  it('counts a Map’s and a Set’s entries, and a typed array’s bytes', () => {
    const map = new Map(Array.from({ length: 100 }, (_, i) => [`key ${i}`, 'v'.repeat(20)]));
    expect(() => checkInputLimits('test', { map }, 2000)).toThrow(InvalidInputsError);
    expect(() => checkInputLimits('test', { set: new Set(map.keys()) }, 500)).toThrow(InvalidInputsError);
    expect(() => checkInputLimits('test', { bytes: new Uint8Array(1000) }, 1500)).toThrow(InvalidInputsError);
    expect(() => checkInputLimits('test', { map, set: new Set(map.keys()) }, 5000)).not.toThrow();
  });
});
