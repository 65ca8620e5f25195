import { describe, expect, it } from 'vitest';
import { plainProgress } from '../../src/cli/progress.js';
import { createFlow, MemoryStore, type StatecrewEvent } from '../../src/index.js';
import { summarizeCrew } from '../view/compose-fixtures.js';

/** The plain progress lines of a real run of `flow`. */
async function progressOf(
  flow: {
    run(o: { inputs: { id: string } }): {
      events$: { subscribe(f: (e: StatecrewEvent) => void): unknown };
      result: Promise<unknown>;
    };
  },
  id: string,
): Promise<string[]> {
  let text = '';
  const progress = plainProgress({ write: (t: string) => (text += t) }, id);
  const run = flow.run({ inputs: { id } });
  run.events$.subscribe((e) => progress.event(e));
  await run.result;
  progress.end();
  return text.split('\n').filter((line) => line !== '');
}

describe('plain progress of real map runs', () => {
  it('counts a map of twenty function items by tenths, with its failed item, done counting completed ones', async () => {
    const flow = createFlow({ name: 'checks', initialState: {}, store: new MemoryStore() })
      .start('list', () => Array.from({ length: 20 }, (_, i) => i))
      .map('check', 'list', {
        items: ({ outputs }) => outputs.list as number[],
        run: (n: number) => {
          if (n === 7) throw new Error('seven is out');
          return n * 2;
        },
        concurrency: 1,
        allowFailures: true,
      });
    const lines = await progressOf(flow, 'p-1');
    const counts = lines.filter((l) => l.startsWith('check: ') && l.includes(' done'));
    expect(counts).toHaveLength(10);
    expect(counts.at(-1)).toBe('check: 19/20 done, 1 failed');
    expect(lines).toContain('check: item 7 failed: seven is out');
  });

  it("prints nothing of a map's crew items' own runs", async () => {
    const flow = createFlow({
      name: 'digest',
      initialState: { docs: ['a', 'b', 'c'] },
      store: new MemoryStore(),
    })
      .start('fetch', ({ state }) => state.docs)
      .map('summaries', 'fetch', { items: ({ state }) => state.docs, run: summarizeCrew() });
    const lines = await progressOf(flow, 'p-2');
    expect(lines.filter((l) => l.includes('summaries: '))).toContain('summaries: 3/3 done');
    // No line of the items' crews: no task `sum`, no bracketed step prefix.
    expect(lines.filter((l) => l.includes('sum ') || l.startsWith('[summaries]'))).toEqual([]);
  });
});
