import { describe, expect, it } from 'vitest';
import { liveProgress, plainProgress } from '../../src/cli/progress.js';
import type { StatecrewEvent } from '../../src/types.js';

const base = { runId: 'run-1', at: 1_000 };
const events: StatecrewEvent[] = [
  { ...base, type: 'node.started', nodeId: 'write', name: 'write', attempt: 1, agent: 'Writer' },
  { ...base, type: 'delegation', kind: 'allocate', task: 'write', role: 'Writer' },
  {
    ...base,
    type: 'delegation',
    kind: 'ask',
    from: 'Writer',
    to: 'Researcher',
    role: 'Researcher',
    task: 'Which sources?\nAnd why?',
    nodeId: 'write',
    depth: 1,
    context: '',
  },
  {
    ...base,
    type: 'delegation.replied',
    kind: 'ask',
    nodeId: 'write',
    from: 'Writer',
    to: 'Researcher',
    reply: 'two',
    durationMs: 12,
  },
];

describe('the CLI progress of delegations', () => {
  it('prints who asked whom and the answer, one plain line each (allocations have none)', () => {
    let written = '';
    const progress = plainProgress({ write: (text: string) => (written += text) }, 'run-1');
    for (const event of events) progress.event(event);
    expect(written.split('\n').slice(0, -1)).toEqual([
      'write started by Writer (attempt 1)',
      'write: Writer asks Researcher: Which sources?',
      'write: Researcher answered Writer in 12 ms',
    ]);
  });

  it("notes the delegation on the node's row of the live list", () => {
    let written = '';
    const progress = liveProgress(
      { write: (text: string) => (written += text) },
      ['write'],
      'run-1',
      () => 5_000,
    );
    for (const event of events.slice(0, 3)) progress.event(event);
    progress.end();
    expect(written.slice(written.lastIndexOf('\u001b[G') + 3)).toMatch(
      /▶ write +running .* asking Researcher/,
    );
  });
});
