import { describe, expect, it } from 'vitest';
import {
  Agent,
  Crew,
  type CrewOutput,
  type CrewRun,
  InvalidOptionError,
  MemoryStore,
  RunAbortedError,
  Task,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { gatedModel } from '../helpers.js';

/** A crew of one task, `Write about {topic}`, by an agent with `llm`. */
function crewWith(llm: Agent['llm']) {
  const writer = new Agent({ role: 'Writer', llm, maxRetries: 0 });
  return new Crew({
    tasks: [new Task({ name: 'write', description: 'Write about {topic}', agent: writer })],
  });
}

const topics = (...names: string[]) => names.map((topic) => ({ topic }));

describe('crew.kickoffForEach', () => {
  it('settles every run in input order, a failed one rejected in its place, the others completed', async () => {
    const llm = createScriptedModel((request) =>
      request.prompt.endsWith('Write about B') ? new Error('model down') : `on ${request.prompt.slice(-1)}`,
    );
    const results = await crewWith(llm).kickoffForEach(topics('A', 'B', 'C'));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const outputs = results.map((r) => (r as PromiseFulfilledResult<CrewOutput>).value);
    expect(outputs.map((o) => o.status)).toEqual(['completed', 'failed', 'completed']);
    expect(outputs.map((o) => o.raw)).toEqual(['on A', '', 'on C']);
    expect(outputs[1]?.errors).toEqual({ write: 'model down' });
    const ids = outputs.map((o) => o.metadata.executionId);
    expect(new Set(ids).size).toBe(3);
  });

  it('puts a rejected run (a refused kickoff) in its place and runs the others', async () => {
    const llm = createScriptedModel((request) => `on ${request.prompt.slice(-1)}`);
    const results = await crewWith(llm).kickoffForEach([{ topic: 'A' }, {}, { topic: 'C' }], {
      strictInputs: true,
    });
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'missing_input' });
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value.raw : null))).toEqual([
      'on A',
      null,
      'on C',
    ]);
  });

  it('keeps at most `concurrency` runs in flight, starting the next as one ends', async () => {
    const gate = gatedModel();
    const crew = crewWith(gate.model);
    const done = crew.kickoffForEach(topics('A', 'B', 'C', 'D', 'E'), { concurrency: 2 });
    await gate.whenCalled('Write about B');
    expect(gate.started).toEqual(['Write about A', 'Write about B']);
    gate.release('Write about B');
    await gate.whenCalled('Write about C');
    expect(gate.started).toHaveLength(3);
    gate.release('Write about A');
    await gate.whenCalled('Write about D');
    gate.release('Write about C');
    await gate.whenCalled('Write about E');
    gate.release('Write about D');
    gate.release('Write about E');
    const results = await done;
    expect(gate.model.peakInFlight).toBe(2);
    expect(results.map((r) => r.status === 'fulfilled' && r.value.raw)).toEqual([
      'done Write about A',
      'done Write about B',
      'done Write about C',
      'done Write about D',
      'done Write about E',
    ]);
  });

  it('runs 4 at once by default', async () => {
    const gate = gatedModel();
    const done = crewWith(gate.model).kickoffForEach(topics('A', 'B', 'C', 'D', 'E', 'F'));
    for (const t of ['A', 'B', 'C', 'D']) await gate.whenCalled(`Write about ${t}`);
    expect(gate.started).toHaveLength(4);
    for (const t of ['A', 'B', 'C', 'D']) gate.release(`Write about ${t}`);
    await gate.whenCalled('Write about F');
    for (const t of ['E', 'F']) gate.release(`Write about ${t}`);
    expect((await done).every((r) => r.status === 'fulfilled')).toBe(true);
    expect(gate.model.peakInFlight).toBe(4);
  });

  it('on abort rejects the runs in flight with aborted, and those not started without starting them', async () => {
    const gate = gatedModel();
    const controller = new AbortController();
    const runs: [number, CrewRun][] = [];
    const done = crewWith(gate.model).kickoffForEach(topics('A', 'B', 'C', 'D'), {
      concurrency: 2,
      signal: controller.signal,
      onRun: (run, index) => runs.push([index, run]),
    });
    await gate.whenCalled('Write about B');
    gate.release('Write about A');
    await gate.whenCalled('Write about C');
    const reason = new Error('shutting down');
    controller.abort(reason);
    const results = await done;
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
    for (const r of results.slice(1)) {
      const error = (r as PromiseRejectedResult).reason as RunAbortedError;
      expect(error).toBeInstanceOf(RunAbortedError);
      expect(error.cause).toBe(reason);
    }
    expect(gate.started).toEqual(['Write about A', 'Write about B', 'Write about C']);
    expect(runs.map(([index]) => index)).toEqual([0, 1, 2]);
  });

  it('gives each run the shared options: a store keeps every run under its own id', async () => {
    const store = new MemoryStore();
    const llm = createScriptedModel(() => 'ok');
    const results = await crewWith(llm).kickoffForEach(topics('A', 'B'), { store });
    const ids = results.map((r) => (r.status === 'fulfilled' ? r.value.metadata.executionId : ''));
    for (const id of ids) expect(await store.readRun(id)).toMatchObject({ status: 'completed' });
  });

  it('resolves with no results for an empty list', async () => {
    await expect(crewWith(createScriptedModel(() => 'ok')).kickoffForEach([])).resolves.toEqual([]);
  });

  it.each([
    ['a list that is not an array', { topic: 'A' }, {}, /inputsList/],
    ['an entry that is not a plain object', [{ topic: 'A' }, 'B'], {}, /inputsList\[1\]/],
    ['a null entry', [null], {}, /inputsList\[0\]/],
    ['a concurrency of 0', [], { concurrency: 0 }, /concurrency/],
    ['a fractional concurrency', [], { concurrency: 1.5 }, /concurrency/],
    ['an unknown option', [], { concurency: 2 }, /did you mean "concurrency"/],
    ['an executionId (each run has its own)', [], { executionId: 'x' }, /executionId/],
  ])('refuses %s with invalid_option before any run', async (_, list, options, message) => {
    const llm = createScriptedModel(() => 'ok');
    const error = await crewWith(llm)
      .kickoffForEach(list as never, options as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toMatch(message);
    expect(llm.calls).toHaveLength(0);
  });
});
