import { describe, expect, it } from 'vitest';
import { Crew, Task } from '../../src/index.js';
import { RunRecorder } from '../../src/runtime/engine/recorder.js';
import { CONTEXT_IDS_PER_SLICE, readContext } from '../../src/runtime/processes/context-reading.js';
import { agent, echoModel } from '../helpers.js';

/** A recorder whose nodes `ids` completed with the output `out <id>`. */
function recorderOf(ids: readonly string[]): RunRecorder {
  const recorder = new RunRecorder();
  for (const id of ids) recorder.nodes.set(id, { nodeId: id, output: { raw: `out ${id}` } } as never);
  return recorder;
}

describe('a long context, read in slices', () => {
  it('is read one slice per queued operation and comes out whole, in list order', () => {
    const ids = Array.from({ length: CONTEXT_IDS_PER_SLICE * 2 + 5 }, (_, i) => `t${i}`);
    const recorder = recorderOf(ids);
    const queued: (() => void)[] = [];
    let context: string | undefined;
    readContext(recorder, ids, { schedule: (operation) => queued.push(operation) }, (text) => {
      context = text;
    });
    // The first slice is read at once; the other two wait for the queue.
    expect(context).toBeUndefined();
    expect(queued).toHaveLength(1);
    (queued.shift() as () => void)();
    expect(context).toBeUndefined();
    (queued.shift() as () => void)();
    expect(queued).toHaveLength(0);
    expect(context).toBe(ids.map((id) => `out ${id}`).join('\n'));
  });

  it('reads a short list at once', () => {
    const ids = ['a', 'b', 'c'];
    let context: string | undefined;
    readContext(recorderOf(ids), ids, { schedule: () => expect.unreachable() }, (text) => {
      context = text;
    });
    expect(context).toBe('out a\nout b\nout c');
  });

  it('gives a graph join over 5,000 tasks their outputs in its list order', async () => {
    const llm = echoModel();
    const worker = agent('W', llm);
    const root = new Task({ name: 'root', description: 'root', agent: worker });
    const fan = Array.from(
      { length: 5_000 },
      (_, i) => new Task({ name: `m${i}`, description: `m${i}`, agent: worker, context: [root] }),
    );
    // The join reads them in reverse: its context follows its list, not the order they ran in.
    const join = new Task({ name: 'join', description: 'join', agent: worker, context: [...fan].reverse() });
    const crew = new Crew({ tasks: [root, ...fan, join], process: 'graph', maxConcurrency: 64 });
    const out = await crew.kickoff();
    expect(out.status).toBe('completed');
    const joinCall = llm.calls.find((c) => c.prompt.endsWith('Task: join'));
    const expected = Array.from({ length: 5_000 }, (_, i) => `W: m${4_999 - i}`).join('\n');
    expect(joinCall?.context).toBe(expected);
  }, 60_000);
});
