/**
 * Factories follow one naming convention (`create*`, `define*`, `from*`, `to*`); the names they had
 * before no release ever shipped are not exported.
 */
import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';
import * as testing from '../../src/testing.js';
import * as view from '../../src/view/index.js';

describe('renamed factories', () => {
  it('have no other names', () => {
    const old: [Record<string, unknown>, string][] = [
      [root, 'recordReplay'],
      [root, 'resultsTool'],
      [testing, 'scriptedModel'],
      [testing, 'manualClock'],
      [view, 'crewView'],
      [view, 'flowView'],
    ];
    for (const [module, name] of old) expect(module[name], name).toBeUndefined();
    for (const current of [root.createRecordReplay, root.createResultsTool, view.toFlowView])
      expect(typeof current).toBe('function');
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
