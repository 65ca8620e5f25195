import { describe, expect, it } from 'vitest';
import { Agent, Crew, type StatecrewEvent, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { renderRunView, toCrewView } from '../../src/view/index.js';

// How long rendering takes is measured by bench/view-paint.ts, not here.
describe('the run view of a big run', () => {
  it('renders a 500-node run: every node drawn, folded into rows', async () => {
    const agent = new Agent({ role: 'Checker', llm: createScriptedModel(() => 'ok') });
    const tasks = Array.from(
      { length: 500 },
      (_, i) => new Task({ name: `check-${i}`, description: `Check item ${i}`, agent }),
    );
    const crew = new Crew({ name: 'checks', tasks, process: 'parallel' });
    const run = crew.run();
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    const view = toCrewView(crew, { output: await run.result, events });
    expect(view.nodes.length).toBeGreaterThanOrEqual(500);
    const html = renderRunView(view);
    expect(html.match(/<g class="node /g)).toHaveLength(view.nodes.length);
    expect(html).toContain('<title>500 nodes of one rank, folded into 42 rows</title>');
  });
});
