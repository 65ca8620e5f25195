/**
 * CrewAI's `lib/crewai/tests/test_flow_default_override.py`, at the commit in `CREWAI_COMMIT`.
 *
 * How CrewAI's constructs map onto statecrew's:
 * - `Flow[PoemState]` with `PoemState(FlowState)` and its defaults → `createFlow({ state })` with a
 *   zod schema whose fields have the same defaults; `flow.state` after `kickoff()` → the result's
 *   `state`, and `flow.state.id` → the result's `id`.
 * - `@persist()` (a SQLite persistence by default) → the flow's `store`.
 * - `@start()` / `@listen(x)` → `.start(name, fn)` / `.listen(name, x, fn)`.
 * - `kickoff(inputs={"id": <a stored run's id>, …})`, which in CrewAI loads that run's state and goes
 *   on under its id → statecrew refuses it (`run_exists`: a kickoff is a new run, and an id names one
 *   run); `kickoff({ from: <run id>, inputs })` starts a new run from that run's stored state, the
 *   inputs merged over it. Both cases are differences for that reason (docs/crewai.md).
 */
import { describe, expect } from 'vitest';
import { z } from 'zod';
import { createFlow, MemoryStore, type Store } from '../../../src/index.js';
import { difference } from './peer.js';

/** CrewAI's PoemState: defaults a stored run's state should override. */
const PoemState = z.object({
  sentence_count: z.number().default(1000),
  has_set_count: z.boolean().default(false),
  poem_type: z.string().default(''),
});

/** CrewAI's PoemFlow of test_default_value_override, kept in `store`. */
function poemFlow(store: Store) {
  return createFlow({ name: 'PoemFlow', state: PoemState, store }).start(
    'set_sentence_count',
    ({ state }) => {
      if (state.has_set_count && state.sentence_count === 2) state.sentence_count = 3;
      else if (state.has_set_count && state.sentence_count === 1000) state.sentence_count = 1000;
      else if (state.has_set_count && state.sentence_count === 5) state.sentence_count = 5;
      else {
        state.sentence_count = 2;
        state.has_set_count = true;
      }
    },
  );
}

/** CrewAI's MultiStepPoemFlow of test_multi_step_default_override, kept in `store`. */
function multiStepPoemFlow(store: Store) {
  return createFlow({ name: 'MultiStepPoemFlow', state: PoemState, store })
    .start('set_sentence_count', ({ state }) => {
      if (!state.has_set_count) {
        state.sentence_count = 3;
        state.has_set_count = true;
      }
    })
    .listen('set_poem_type', 'set_sentence_count', ({ state }) => {
      if (state.sentence_count === 3) state.poem_type = 'haiku';
      else if (state.sentence_count === 5) state.poem_type = 'limerick';
      else state.poem_type = 'free_verse';
    })
    .listen('finished', 'set_poem_type', () => undefined);
}

describe('test_flow_default_override.py', () => {
  difference(
    'test_flow_default_override.py::test_default_value_override',
    async () => {
      const flow = poemFlow(new MemoryStore());
      const flow1 = await flow.kickoff();
      const originalId = flow1.state.id;
      expect(flow1.state.sentence_count).toBe(2);

      const flow2 = await flow.kickoff({ inputs: { id: originalId } });
      expect(flow2.state.sentence_count).toBe(3);

      const flow3 = await flow.kickoff({
        inputs: { id: originalId, has_set_count: true, sentence_count: 5 },
      });
      expect(flow3.state.sentence_count).toBe(5);

      const flow4 = await flow.kickoff({ inputs: { has_set_count: true } });
      expect(flow4.state.sentence_count).toBe(1000);
    },
    async () => {
      const flow = poemFlow(new MemoryStore());
      const flow1 = await flow.kickoff();
      expect(flow1.state.sentence_count).toBe(2);
      await expect(flow.kickoff({ inputs: { id: flow1.id } })).rejects.toMatchObject({ code: 'run_exists' });

      // Each fork is a new run from the latest stored state, as CrewAI's id is after each kickoff.
      const flow2 = await flow.kickoff({ from: flow1.id });
      expect(flow2.id).not.toBe(flow1.id);
      expect(flow2.state.sentence_count).toBe(3);

      const flow3 = await flow.kickoff({
        from: flow2.id,
        inputs: { has_set_count: true, sentence_count: 5 },
      });
      expect(flow3.state.sentence_count).toBe(5);

      const flow4 = await flow.kickoff({ inputs: { has_set_count: true } });
      expect(flow4.state.sentence_count).toBe(1000);
    },
  );

  difference(
    'test_flow_default_override.py::test_multi_step_default_override',
    async () => {
      const flow = multiStepPoemFlow(new MemoryStore());
      const flow1 = await flow.kickoff();
      const originalId = flow1.state.id;
      expect(flow1.state.sentence_count).toBe(3);
      expect(flow1.state.poem_type).toBe('haiku');

      const flow2 = await flow.kickoff({ inputs: { id: originalId, sentence_count: 5 } });
      expect(flow2.state.sentence_count).toBe(5);
      expect(flow2.state.poem_type).toBe('limerick');

      const flow3 = await flow.kickoff({ inputs: { id: originalId } });
      expect(flow3.state.sentence_count).toBe(5);
      expect(flow3.state.poem_type).toBe('limerick');
    },
    async () => {
      const flow = multiStepPoemFlow(new MemoryStore());
      const flow1 = await flow.kickoff();
      expect(flow1.state.sentence_count).toBe(3);
      expect(flow1.state.poem_type).toBe('haiku');
      await expect(flow.kickoff({ inputs: { id: flow1.id, sentence_count: 5 } })).rejects.toMatchObject({
        code: 'run_exists',
      });

      const flow2 = await flow.kickoff({ from: flow1.id, inputs: { sentence_count: 5 } });
      expect(flow2.state.sentence_count).toBe(5);
      expect(flow2.state.poem_type).toBe('limerick');

      const flow3 = await flow.kickoff({ from: flow2.id });
      expect(flow3.state.sentence_count).toBe(5);
      expect(flow3.state.poem_type).toBe('limerick');
    },
  );
});
