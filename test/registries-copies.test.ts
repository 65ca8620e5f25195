import { describe, expect, it } from 'vitest';
import * as source from '../src/index.js';
import { eventsSoFar } from '../src/runtime/durable/follow-events.js';
import * as sourceTesting from '../src/testing.js';
import { built } from './helpers.js';

/** The built package: a second copy of every module, loaded beside the sources in this process. */
const other = (await import(built('index.js'))) as typeof source;
const otherTesting = (await import(built('testing.js'))) as typeof sourceTesting;

describe('the process-wide registries, shared by every copy of statecrew in one process', () => {
  it('a provider registered with one copy serves the agents of another', async () => {
    other.registerProvider('copies-house', (id) => otherTesting.createScriptedModel(() => `${id} notes`));
    const researcher = new source.Agent({ role: 'Researcher', goal: 'g', llm: 'copies-house:small' });
    const crew = new source.Crew({
      tasks: [new source.Task({ name: 'research', description: 'research', agent: researcher })],
    });
    const out = await crew.kickoff();
    expect(out.raw).toBe('small notes');
  });

  it('the events a run of one copy has kept but not committed yet are read by the other copy', async () => {
    const store = new source.MemoryStore();
    let entered: () => void = () => {};
    const inFirstStep = new Promise<void>((resolve) => (entered = resolve));
    let release: (value: string) => void = () => {};
    const gate = new Promise<string>((resolve) => (release = resolve));
    const flow = other
      .createFlow({ name: 'gated', initialState: {}, store })
      .start('first', () => {
        entered();
        return gate;
      })
      .listen('second', 'first', () => 'two');
    const result = flow.kickoff({ inputs: { id: 'copies' }, events: 'store' });
    await inFirstStep;
    // The first step is in flight: its start is kept by the run's journal, not committed yet.
    const stored = (await source.readEvents(store, 'copies')).map((kept) => kept.event.type);
    expect(stored).not.toContain('node.started');
    const soFar = (await eventsSoFar(store, 'copies')).map((kept) => kept.event.type);
    expect(soFar).toContain('node.started');
    release('one');
    await result;
  });

  it('a lease a run of one copy holds is live for the other: its resume there is refused, run_locked', async () => {
    const store = new source.MemoryStore();
    let entered: () => void = () => {};
    const inFirstStep = new Promise<void>((resolve) => (entered = resolve));
    let release: (value: string) => void = () => {};
    const gate = new Promise<string>((resolve) => (release = resolve));
    const held = other.createFlow({ name: 'leased', initialState: {}, store }).start('first', () => {
      entered();
      return gate;
    });
    const result = held.kickoff({ inputs: { id: 'leased' } });
    await inFirstStep;
    const same = source.createFlow({ name: 'leased', initialState: {}, store }).start('first', () => 'taken');
    await expect(same.resume('leased')).rejects.toMatchObject({ code: 'run_locked' });
    release('one');
    expect((await result).status).toBe('completed');
  });

  it("a model's maxRpm spaces the calls of runs of both copies that use it", async () => {
    const clock = sourceTesting.createManualClock();
    const seen: number[] = [];
    const base = otherTesting.createScriptedModel(() => {
      seen.push(clock.now());
      return 'ok';
    });
    const shared = { maxRpm: 30, generate: base.generate.bind(base) }; // one call every two seconds
    const task = (copy: typeof source) =>
      new copy.Task({ name: 't', description: 't', agent: new copy.Agent({ role: 'A', llm: shared }) });
    await new source.Crew({ tasks: [task(source)] }).kickoff({ clock });
    const run = new other.Crew({ tasks: [task(other)] }).run({ clock });
    // Its call waits for its turn (a timer on the run's clock), or is made at once where turns are apart.
    await Promise.race([run.result, clock.whenTimer()]);
    clock.advance(2000);
    expect((await run.result).status).toBe('completed');
    expect(seen.map((t) => t - (seen[0] as number))).toEqual([0, 2000]);
  });
});
