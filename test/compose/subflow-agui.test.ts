import { HttpAgent } from '@ag-ui/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqliteStore } from '../../src/index.js';
import { type Listening, listen } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { parentFlow, reviewFlow } from '../fixtures/compose/subflow-flows.js';
import { TOKEN, tempStore, testServer } from '../serve/serve-helpers.js';

let temp: ReturnType<typeof tempStore>;
let store: SqliteStore;
let listening: Listening;
let server: ReturnType<typeof testServer>;
const ran: string[] = [];
const auth = { authorization: `Bearer ${TOKEN}` };

beforeEach(async () => {
  temp = tempStore();
  store = temp.store;
  ran.length = 0;
  server = testServer(store, { flows: [parentFlow(reviewFlow(ran), ran)] });
  listening = await listen(server, { port: 0 });
});

afterEach(async () => {
  await server.close();
  await listening.close();
  await temp.dispose();
});

describe('AG-UI interrupts of a parent paused on its child flow', { timeout: 60_000 }, () => {
  it("name the child's human step by its path, and a resume of the interrupt reaches the child", async () => {
    const response = await fetch(`${listening.url}/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ definition: 'publish', inputs: {}, id: 'g1' }),
    });
    expect(response.status).toBe(202);
    await liveRuns(server).get('g1')?.done;
    const agent = new HttpAgent({ url: `${listening.url}/runs/g1/agui`, headers: auth });
    await agent.runAgent({});
    expect(agent.pendingInterrupts).toEqual([
      expect.objectContaining({ id: 'g1:review › approve', message: 'Publish it?' }),
    ]);
    await agent.runAgent({
      resume: [{ interruptId: 'g1:review › approve', status: 'resolved', payload: { route: 'ok' } }],
    });
    await liveRuns(server).get('g1')?.done;
    expect((await store.readRun('g1'))?.status).toBe('completed');
    expect((await store.readRun('g1/review'))?.status).toBe('completed');
    expect(ran).toEqual(['plan', 'write', 'done', 'ship']);
    expect(agent.pendingInterrupts).toEqual([]);
  });
});
