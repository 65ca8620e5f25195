import { describe, expect, it } from 'vitest';
import { buildCrewOutput, buildCrewOutputInSlices, OUTPUT_SLICE } from '../../src/runtime/crew/result.js';
import { RunRecorder } from '../../src/runtime/engine/recorder.js';
import { turnCounter } from '../helpers.js';

/** A recorder of `n` settled nodes: every third failed, the others completed. */
function recorderOf(n: number): RunRecorder {
  const recorder = new RunRecorder();
  for (let i = 0; i < n; i += 1) {
    const nodeId = `t${i}`;
    recorder.started(nodeId, nodeId, 'W', 1, i);
    if (i % 3 === 2) {
      recorder.apply(
        {
          type: 'node.failed',
          nodeId,
          attempt: 1,
          durationMs: 1,
          error: 'boom',
          retryable: false,
          willRetry: false,
        },
        i,
      );
    } else {
      const output = { name: nodeId, description: 'x', expectedOutput: '', agent: 'W', raw: `out ${i}` };
      recorder.completed(nodeId, output, 1);
    }
  }
  return recorder;
}

const summary = { raw: 'last', output: 'last', leaves: [] };
const facts = { executionId: 'r', process: 'parallel', totalTimeMs: 5, nodeIdOf: () => undefined };

describe('a result built in slices', () => {
  it('is the result built at once, and lets the host run between its slices', async () => {
    const n = 2 * OUTPUT_SLICE + 100;
    const recorder = recorderOf(n);
    const atOnce = buildCrewOutput(recorder, summary, facts);
    const counter = turnCounter();
    const sliced = await buildCrewOutputInSlices(recorder, summary, facts);
    const turns = counter.stop();
    expect(JSON.parse(JSON.stringify(sliced))).toEqual(JSON.parse(JSON.stringify(atOnce)));
    expect(sliced.nodes).toHaveLength(n);
    expect(Object.keys(sliced.errors)).toHaveLength(Math.floor(n / 3));
    expect(sliced.status).toBe('partial');
    // Three slices: the host got a turn after each of the first two.
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it('builds a small result in one slice, with no turn of the loop in between', async () => {
    const recorder = recorderOf(10);
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    const sliced = await buildCrewOutputInSlices(recorder, summary, facts);
    expect(turned).toBe(false);
    expect(sliced.nodes).toHaveLength(10);
  });
});
