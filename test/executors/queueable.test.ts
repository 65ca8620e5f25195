/**
 * The queue runs crews and flows through the interfaces it declares (`QueueableCrew`, `QueueableFlow`),
 * not through the `Crew` and `Flow` classes: these are checked here to satisfy them, and what it
 * hands its runner to satisfy the runner's own. The checks are the type checker's (`tsc`); the test
 * only runs them.
 */
import { describe, expectTypeOf, it } from 'vitest';
import {
  Agent,
  Crew,
  createFlow,
  type Flow,
  type RecoverableCrew,
  type RecoverableFlow,
  Task,
} from '../../src/index.js';
import type { QueueableCrew, QueueableFlow, RunDefinitions } from '../../src/queue/index.js';
import { createScriptedModel } from '../../src/testing.js';

describe('what the queue needs of a definition', () => {
  it('is what a Crew and any Flow are', () => {
    expectTypeOf<Crew>().toExtend<QueueableCrew>();
    expectTypeOf<Flow<object>>().toExtend<QueueableFlow>();
    expectTypeOf<Flow<{ count: number }>>().toExtend<QueueableFlow>();
  });

  it('takes a crew and a flow as they are made, by name', () => {
    const writer = new Agent({ role: 'Writer', llm: createScriptedModel(() => 'ok') });
    const brief = new Crew({ name: 'brief', tasks: [new Task({ description: 'write', agent: writer })] });
    const review = createFlow({ name: 'review', initialState: { score: 0 } }).start('grade', () => 7);
    const definitions = { brief, review } satisfies RunDefinitions;
    expectTypeOf(definitions.brief).toExtend<QueueableCrew>();
    expectTypeOf(definitions.review).toExtend<QueueableFlow>();
  });

  it('is also what the worker’s runner needs of it', () => {
    expectTypeOf<QueueableCrew>().toExtend<RecoverableCrew>();
    expectTypeOf<QueueableFlow>().toExtend<RecoverableFlow>();
  });

  it('tells a flow from a crew', () => {
    expectTypeOf<QueueableCrew>().not.toExtend<QueueableFlow>();
  });
});
