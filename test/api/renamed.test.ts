/**
 * Factories follow one naming convention (`create*`, `define*`, `from*`, `to*`). The names they had
 * before stay for one release as deprecated aliases: each must be the very same function.
 */
import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';
import * as testing from '../../src/testing.js';
import * as view from '../../src/view/index.js';

describe('renamed factories', () => {
  it('keep their old names as aliases of the new ones', () => {
    const pairs: [string, unknown, unknown][] = [
      ['createRecordReplay', root.createRecordReplay, root.recordReplay],
      ['createResultsTool', root.createResultsTool, root.resultsTool],
      ['createScriptedModel', testing.createScriptedModel, testing.scriptedModel],
      ['createManualClock', testing.createManualClock, testing.manualClock],
      ['toCrewView', view.toCrewView, view.crewView],
      ['toFlowView', view.toFlowView, view.flowView],
    ];
    for (const [name, current, old] of pairs) {
      expect(typeof current, name).toBe('function');
      expect(old, name).toBe(current);
    }
  });

  it('work under their new names', async () => {
    const model = testing.createScriptedModel(['hello']);
    const agent = new root.Agent({ role: 'Greeter', llm: model });
    const crew = new root.Crew({ tasks: [new root.Task({ description: 'greet', agent })] });
    const out = await crew.kickoff();
    expect(out.raw).toBe('hello');
    const clock = testing.createManualClock(0);
    clock.advance(5);
    expect(clock.now()).toBe(5);
    expect(view.toCrewView(crew, { output: out, events: [] }).kind).toBe('crew');
  });
});
