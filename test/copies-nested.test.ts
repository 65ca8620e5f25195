import { describe, expect, it } from 'vitest';
import * as source from '../src/index.js';
import type * as sourceTesting from '../src/testing.js';
import { built } from './helpers.js';

/** The built package: a second copy of every module, loaded beside the sources in this process. */
const other = (await import(built('index.js'))) as typeof source;
const otherTesting = (await import(built('testing.js'))) as typeof sourceTesting;

// The first run of each copy in this file: where each copy counted its runs apart, both named their
// worker actors alike, and the crew's joined the flow's actor system under a name already taken.
describe('a run of one copy of statecrew inside a run of another', () => {
  it("runs a crew built with the other copy as a flow step's child", async () => {
    const llm = otherTesting.createScriptedModel(() => 'notes');
    const crew = new other.Crew({
      name: 'inner',
      tasks: [new other.Task({ name: 'note', description: 'x', agent: new other.Agent({ role: 'R', llm }) })],
    });
    const flow = source
      .createFlow({ name: 'outer', initialState: {} })
      .start('step', async (ctx) => (await ctx.kickoff(crew as unknown as source.Crew)).raw);
    const out = await flow.kickoff();
    expect(out).toMatchObject({ status: 'completed', outputs: { step: 'notes' } });
  });
});
