import { describe, expect, it } from 'vitest';
import { Agent, Crew, Task } from '../../src/index.js';
import { createServer } from '../../src/serve/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { wrapStore } from '../store-helpers.js';
import { authed, json, TOKEN, tempStore } from './serve-helpers.js';

/** A crew of one task whose model counts its calls. */
function countedCrew(calls: string[]) {
  const llm = createScriptedModel((request) => {
    calls.push(request.prompt);
    return 'notes';
  });
  const agent = new Agent({ role: 'Researcher', goal: 'find facts', backstory: 'careful', llm });
  const task = new Task({
    name: 'research',
    description: 'Research {topic}',
    expectedOutput: 'notes',
    agent,
  });
  return new Crew({ name: 'research', tasks: [task] });
}

describe('a server closing while a run it was asked for still claims its id', { timeout: 30_000 }, () => {
  it('stops that run gracefully too: kept running with no owner for a runner, its task not run here', async () => {
    const temp = tempStore();
    let claimAsked: () => void = () => {};
    const asked = new Promise<void>((resolve) => {
      claimAsked = resolve;
    });
    let openClaim: () => void = () => {};
    const claimGate = new Promise<void>((resolve) => {
      openClaim = resolve;
    });
    // The claim of a new run's id waits until the server began to close.
    const store = wrapStore(temp.store, {
      createRun: async (head) => {
        claimAsked();
        await claimGate;
        return temp.store.createRun(head);
      },
    });
    const calls: string[] = [];
    const server = createServer({ crews: [countedCrew(calls)], store, token: TOKEN, runner: false });
    try {
      const body = { definition: 'research', inputs: { topic: 'AI' }, id: 'late-1' };
      const posted = server.request('/runs', authed({ body }));
      await asked;
      const closed = server.close();
      openClaim();
      const response = await posted;
      expect(response.status, JSON.stringify(await json(response))).toBe(202);
      await closed;
      expect(await temp.store.readRun('late-1')).toMatchObject({ status: 'running', lease: null });
      expect(calls).toEqual([]);
    } finally {
      await server.close();
      await temp.dispose();
    }
  });
});
