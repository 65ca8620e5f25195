/*
 * CrewAI's lib/crewai/tests/test_flow_persistence.py (commit CREWAI_COMMIT), ported.
 *
 * How statecrew's constructs map to CrewAI's:
 * - `@persist(SQLiteFlowPersistence(db_path))` on a step or on the class → a flow with a
 *   `SqliteStore({ path })`: a run with a store commits after every step (there is no per-step
 *   choice); `persistence.load_state(id)` → `(await flow.getRun(id))?.state`.
 * - `class X(Flow[TestState])` with `@start`/`@listen` methods → `createFlow({ name: 'X', state })`
 *   with `.start` / `.listen` steps; a Pydantic `FlowState` → a zod schema (statecrew adds the `id`).
 * - `flow.state` after `flow.kickoff()` → the kickoff's `out.state`: a flow object is a definition
 *   and every kickoff a new run (docs/flows.md).
 * - The state's id is set with `inputs.id` (a step that changes `state.id` fails with `invalid_state`).
 * - Restoring a stored run's state, CrewAI's `kickoff(inputs={'id': X, ...})` and
 *   `kickoff(restore_from_state_id=X)`, → `kickoff({ from: X, inputs })`: a new run starting from
 *   X's stored state with `inputs` merged over it (a new id unless `inputs.id` pins one).
 * - `kickoff_async` and `akickoff` → `kickoff`, which is asynchronous already.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, vi } from 'vitest';
import { z } from 'zod';
import { createFlow, type FlowRunOptions, SqliteStore, type StatecrewEvent } from '../../../src/index.js';
import { difference, peer } from './peer.js';

const FILE = 'test_flow_persistence.py';

const opened: { dir: string; store: SqliteStore }[] = [];

/** CrewAI's `SQLiteFlowPersistence(os.path.join(tmp_path, "test_flows.db"))`. */
function sqlitePersistence(): SqliteStore {
  const dir = mkdtempSync(join(tmpdir(), 'flow-persistence-'));
  const store = new SqliteStore({ path: join(dir, 'test_flows.db') });
  opened.push({ dir, store });
  return store;
}

afterEach(async () => {
  for (const { dir, store } of opened.splice(0)) {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  vi.restoreAllMocks();
});

/** CrewAI's `TestState(FlowState)`: `counter: int = 0`, `message: str = ""`. */
const TestState = z.object({ counter: z.number().int().default(0), message: z.string().default('') });

/** What the store holds of run `id`: CrewAI's `persistence.load_state(id)`. */
async function loadState(flow: { getRun(id: string): Promise<{ state: unknown } | undefined> }, id: string) {
  return (await flow.getRun(id))?.state as Record<string, unknown> | undefined;
}

/** A flow whose one start step, persisted, adds one to the counter (the fork tests' flows). */
function counterFlow(name: string, store: SqliteStore) {
  return createFlow({ name, state: TestState, store }).start('step', ({ state }) => {
    state.counter += 1;
  });
}

/** Everything a callback may have printed (CrewAI's `caplog.text`). */
function capturedLogs(): () => string {
  const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) =>
    vi.spyOn(console, level).mockImplementation(() => {}),
  );
  return () => spies.flatMap((spy) => spy.mock.calls.map((args) => args.map(String).join(' '))).join('\n');
}

peer(`${FILE}::test_persist_decorator_saves_state`, async () => {
  const persistence = sqlitePersistence();
  // CrewAI sets `self.state["id"] = "test-uuid"` in the step; statecrew takes the id from `inputs.id`.
  const flow = createFlow({
    name: 'TestFlow',
    initialState: {} as Record<string, string>,
    store: persistence,
  }).start('init_step', ({ state }) => {
    state.message = 'Hello, World!';
  });
  const out = await flow.kickoff({ inputs: { id: 'test-uuid' } });

  const savedState = await loadState(flow, out.state.id);
  expect(savedState).toBeDefined();
  expect(savedState?.message).toBe('Hello, World!');
});

peer(`${FILE}::test_structured_state_persistence`, async () => {
  const persistence = sqlitePersistence();
  const flow = createFlow({ name: 'StructuredFlow', state: TestState, store: persistence }).start(
    'count_up',
    ({ state }) => {
      state.counter += 1;
      state.message = `Count is ${state.counter}`;
    },
  );
  const out = await flow.kickoff();

  const savedState = await loadState(flow, out.state.id);
  expect(savedState).toBeDefined();
  expect(savedState?.counter).toBe(1);
  expect(savedState?.message).toBe('Count is 1');
});

/** CrewAI's `RestorableFlow`: fills message and counter when they are empty. */
function restorableFlow(persistence: SqliteStore) {
  return createFlow({ name: 'RestorableFlow', state: TestState, store: persistence }).start(
    'set_message',
    ({ state }) => {
      if (state.message === '') state.message = 'Original message';
      if (state.counter === 0) state.counter = 42;
    },
  );
}

difference(
  `${FILE}::test_flow_state_restoration`,
  async () => {
    const persistence = sqlitePersistence();
    const flow1 = await restorableFlow(persistence).kickoff();
    const originalUuid = flow1.state.id;

    const flow2 = await restorableFlow(persistence).kickoff({ from: originalUuid, inputs: { counter: 43 } });
    expect(flow2.state.id).toBe(originalUuid);
    expect(flow2.state.message).toBe('Original message');
    expect(flow2.state.counter).toBe(43);

    const flow3 = await restorableFlow(persistence).kickoff({
      from: originalUuid,
      inputs: { message: 'Updated message' },
    });
    expect(flow3.state.id).toBe(originalUuid);
    expect(flow3.state.counter).toBe(43);
    expect(flow3.state.message).toBe('Updated message');
  },
  async () => {
    // A restore is a fork: a new run, the inputs merged over the stored state, the source unchanged.
    const persistence = sqlitePersistence();
    const flow1 = await restorableFlow(persistence).kickoff();
    const originalUuid = flow1.state.id;

    const flow2 = await restorableFlow(persistence).kickoff({ from: originalUuid, inputs: { counter: 43 } });
    expect(flow2.state.id).not.toBe(originalUuid);
    expect(flow2.state.message).toBe('Original message');
    expect(flow2.state.counter).toBe(43);
    expect((await loadState(restorableFlow(persistence), originalUuid))?.counter).toBe(42);

    // Going on from what flow2 left is a fork of flow2's run.
    const flow3 = await restorableFlow(persistence).kickoff({
      from: flow2.state.id,
      inputs: { message: 'Updated message' },
    });
    expect(flow3.state.counter).toBe(43);
    expect(flow3.state.message).toBe('Updated message');
    // Restoring by its own id is refused: the id is the stored run's (run_exists).
    await expect(
      restorableFlow(persistence).kickoff({ inputs: { id: originalUuid, counter: 43 } }),
    ).rejects.toMatchObject({ code: 'run_exists' });
  },
);

/** CrewAI's `MultiStepFlow` (`persistStep2`) and `NoPersistenceMultiStepFlow` (its step_2 not persisted). */
function multiStepFlow(name: string, persistence: SqliteStore) {
  return createFlow({ name, state: TestState, store: persistence })
    .start('step_1', ({ state }) => {
      if (state.counter === 1) {
        state.counter = 99999;
        state.message = 'Step 99999';
      } else {
        state.counter = 1;
        state.message = 'Step 1';
      }
    })
    .listen('step_2', 'step_1', ({ state }) => {
      if (state.counter === 1) {
        state.counter = 2;
        state.message = 'Step 2';
      }
    });
}

difference(
  `${FILE}::test_multiple_method_persistence`,
  async () => {
    const persistence = sqlitePersistence();
    const flow = await multiStepFlow('MultiStepFlow', persistence).kickoff();
    const flow2 = await multiStepFlow('MultiStepFlow', persistence).kickoff({ from: flow.state.id });
    let finalState = flow2.state;
    expect(finalState).toBeDefined();
    expect(finalState.counter).toBe(2);
    expect(finalState.message).toBe('Step 2');

    // CrewAI persists step_1 only here: the restored state is the one step_1 left (counter 1).
    const noPersistence = await multiStepFlow('NoPersistenceMultiStepFlow', persistence).kickoff();
    const noPersistence2 = await multiStepFlow('NoPersistenceMultiStepFlow', persistence).kickoff({
      from: noPersistence.state.id,
    });
    finalState = noPersistence2.state;
    expect(finalState.counter).toBe(99999);
    expect(finalState.message).toBe('Step 99999');
  },
  async () => {
    // Every step is committed: a fork starts from the state the last step left (counter 2), so
    // step_1 sets 1 again and step_2 makes it 2.
    const persistence = sqlitePersistence();
    const flow = multiStepFlow('NoPersistenceMultiStepFlow', persistence);
    const first = await flow.kickoff();
    expect((await loadState(flow, first.state.id))?.counter).toBe(2);
    const second = await flow.kickoff({ from: first.state.id });
    expect(second.state.counter).toBe(2);
    expect(second.state.message).toBe('Step 2');
  },
);

difference(
  `${FILE}::test_persist_decorator_verbose_logging`,
  async () => {
    const persistence = sqlitePersistence();
    let logs = capturedLogs();
    const quiet = createFlow({
      name: 'QuietFlow',
      initialState: {} as Record<string, string>,
      store: persistence,
    }).start('init_step', ({ state }) => {
      state.message = 'Hello, World!';
    });
    await quiet.kickoff({ inputs: { id: 'test-uuid-1' } });
    expect(logs()).not.toContain('Saving flow state');

    vi.restoreAllMocks();
    logs = capturedLogs();
    // CrewAI's `@persist(persistence, verbose=True)`.
    const verboseOptions = {
      name: 'VerboseFlow',
      initialState: {} as Record<string, string>,
      store: persistence,
      verbose: true,
    };
    const verbose = createFlow(verboseOptions).start('init_step', ({ state }) => {
      state.message = 'Hello, World!';
    });
    await verbose.kickoff({ inputs: { id: 'test-uuid-2' } });
    expect(logs()).toContain('Saving flow state');
  },
  async () => {
    // Nothing is printed; each step's commit is told by its `flow.step` event (the next round
    // starts only once it landed), and the run's events can be kept with it (`events: 'store'`).
    const persistence = sqlitePersistence();
    const logs = capturedLogs();
    const flow = createFlow({
      name: 'VerboseFlow',
      initialState: {} as Record<string, string>,
      store: persistence,
    }).start('init_step', ({ state }) => {
      state.message = 'Hello, World!';
    });
    const run = flow.run({ inputs: { id: 'test-uuid-2' } });
    const steps: [string, string][] = [];
    run.events$.subscribe((event: StatecrewEvent) => {
      if (event.type === 'flow.step') steps.push([event.name, event.status]);
    });
    await run.result;
    expect(logs()).toBe('');
    expect(steps).toContainEqual(['init_step', 'completed']);
    expect((await loadState(flow, 'test-uuid-2'))?.message).toBe('Hello, World!');
  },
);

peer(`${FILE}::test_persistence_with_base_model`, async () => {
  const persistence = sqlitePersistence();
  const Message = z.object({ role: z.string(), type: z.string(), content: z.string() });
  const State = z.object({
    latest_message: Message.nullable().default(null),
    history: z.array(Message).default([]),
  });
  // CrewAI's class-level `@persist(persistence)`: the flow's store keeps every step.
  const baseModelFlow = createFlow({ name: 'BaseModelFlow', state: State, store: persistence }).start(
    'init_step',
    ({ state }) => {
      state.latest_message = { role: 'user', type: 'text', content: 'Hello, World!' };
      state.history.push(state.latest_message);
    },
  );
  const flow = await baseModelFlow.kickoff();

  const latestMessage = flow.state.latest_message;
  const [message] = flow.state.history;

  expect(latestMessage).not.toBeNull();
  expect(latestMessage?.role).toBe('user');
  expect(latestMessage?.type).toBe('text');
  expect(latestMessage?.content).toBe('Hello, World!');

  expect(flow.state.history).toHaveLength(1);
  expect(message?.role).toBe('user');
  expect(message?.type).toBe('text');
  expect(message?.content).toBe('Hello, World!');
  // `isinstance(flow.state, State)`: the state fits its schema.
  expect(State.safeParse(flow.state).success).toBe(true);
});

difference(
  `${FILE}::test_fork_with_restore_from_state_id`,
  async () => {
    const persistence = sqlitePersistence();
    const flow1 = await counterFlow('ForkableFlow', persistence).kickoff();
    const sourceUuid = flow1.state.id;
    expect(flow1.state.counter).toBe(1);

    // Resume on the same uuid bumps counter to 2 in the SAME flow_uuid history.
    const flow1b = await counterFlow('ForkableFlow', persistence).kickoff({ from: sourceUuid });
    expect(flow1b.state.counter).toBe(2);
    expect((await loadState(counterFlow('ForkableFlow', persistence), sourceUuid))?.counter).toBe(2);

    const flow2 = await counterFlow('ForkableFlow', persistence).kickoff({ from: sourceUuid });
    expect(flow2.state.id).not.toBe(sourceUuid);
    expect(flow2.state.counter).toBe(3);
    expect((await loadState(counterFlow('ForkableFlow', persistence), sourceUuid))?.counter).toBe(2);
    expect((await loadState(counterFlow('ForkableFlow', persistence), flow2.state.id))?.counter).toBe(3);
  },
  async () => {
    // Going on from a run is a fork of it: each fork is a run of its own, its source unchanged.
    const persistence = sqlitePersistence();
    const flow = counterFlow('ForkableFlow', persistence);
    const flow1 = await flow.kickoff();
    const sourceUuid = flow1.state.id;
    expect(flow1.state.counter).toBe(1);

    const flow1b = await flow.kickoff({ from: sourceUuid });
    expect(flow1b.state.counter).toBe(2);
    expect(flow1b.state.id).not.toBe(sourceUuid);
    expect((await loadState(flow, sourceUuid))?.counter).toBe(1);

    const flow2 = await flow.kickoff({ from: flow1b.state.id });
    expect(flow2.state.id).not.toBe(flow1b.state.id);
    expect(flow2.state.counter).toBe(3);
    expect((await loadState(flow, flow1b.state.id))?.counter).toBe(2);
    expect((await loadState(flow, flow2.state.id))?.counter).toBe(3);
  },
);

peer(`${FILE}::test_fork_with_pinned_state_id`, async () => {
  const persistence = sqlitePersistence();
  const flow = counterFlow('PinnableFlow', persistence);
  const flow1 = await flow.kickoff();
  const sourceUuid = flow1.state.id;
  expect(flow1.state.counter).toBe(1);

  const pinnedUuid = 'pinned-fork-uuid-1234';
  const flow2 = await counterFlow('PinnableFlow', persistence).kickoff({
    inputs: { id: pinnedUuid },
    from: sourceUuid,
  });

  expect(flow2.state.id).toBe(pinnedUuid);
  expect(flow2.state.counter).toBe(2);
  expect((await loadState(flow, sourceUuid))?.counter).toBe(1);
  expect((await loadState(flow, pinnedUuid))?.counter).toBe(2);
});

difference(
  `${FILE}::test_restore_from_state_id_not_found_silent_fallback`,
  async () => {
    const persistence = sqlitePersistence();
    const flow = await counterFlow('FallbackFlow', persistence).kickoff({ from: 'no-such-uuid' });
    expect(flow.state.counter).toBe(1);
    expect(flow.state.id).not.toBe('no-such-uuid');
  },
  async () => {
    const persistence = sqlitePersistence();
    const flow = counterFlow('FallbackFlow', persistence);
    await expect(flow.kickoff({ from: 'no-such-uuid' })).rejects.toMatchObject({
      code: 'run_not_found',
      message: expect.stringContaining('no-such-uuid'),
    });
    expect(await persistence.listRuns({})).toEqual([]);
  },
);

peer(`${FILE}::test_restore_from_state_id_none_is_no_op`, async () => {
  const persistence = sqlitePersistence();
  const flow = await counterFlow('BaselineFlow', persistence).kickoff({ from: undefined });
  expect(flow.state.counter).toBe(1);
});

/** CrewAI's `kickoff(from_checkpoint=CheckpointConfig(), restore_from_state_id="some-uuid")`. */
function conflictingKickoff(name: string) {
  const flow = createFlow({ name, state: TestState }).start('step', () => {});
  const options = { fromCheckpoint: {}, from: 'some-uuid' } as FlowRunOptions;
  return { flow, kickoff: () => flow.kickoff(options) };
}

/** What statecrew does with a checkpoint option: refused as unknown, before anything runs. */
async function refusesCheckpointOption(name: string): Promise<void> {
  const { kickoff } = conflictingKickoff(name);
  await expect(kickoff()).rejects.toMatchObject({
    code: 'invalid_option',
    message: expect.stringContaining('fromCheckpoint'),
  });
}

difference(
  `${FILE}::test_fork_conflict_with_from_checkpoint_raises`,
  async () => {
    const { kickoff } = conflictingKickoff('ConflictFlow');
    const error = await kickoff().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(Error);
    const msg = String((error as Error).message);
    expect(msg).toContain('from_checkpoint');
    expect(msg).toContain('restore_from_state_id');
  },
  () => refusesCheckpointOption('ConflictFlow'),
);

peer(`${FILE}::test_fork_via_kickoff_async`, async () => {
  const persistence = sqlitePersistence();
  const flow = counterFlow('AsyncForkableFlow', persistence);
  const flow1 = await flow.kickoff();
  const sourceUuid = flow1.state.id;
  expect(flow1.state.counter).toBe(1);

  const flow2 = await counterFlow('AsyncForkableFlow', persistence).kickoff({ from: sourceUuid });

  expect(flow2.state.id).not.toBe(sourceUuid);
  expect(flow2.state.counter).toBe(2);
  expect((await loadState(flow, sourceUuid))?.counter).toBe(1);
  expect((await loadState(flow, flow2.state.id))?.counter).toBe(2);
});

peer(`${FILE}::test_fork_via_akickoff`, async () => {
  const persistence = sqlitePersistence();
  const flow = counterFlow('AkickoffForkableFlow', persistence);
  const flow1 = await flow.kickoff();
  const sourceUuid = flow1.state.id;
  expect(flow1.state.counter).toBe(1);

  const flow2 = await counterFlow('AkickoffForkableFlow', persistence).kickoff({ from: sourceUuid });

  expect(flow2.state.id).not.toBe(sourceUuid);
  expect(flow2.state.counter).toBe(2);
  expect((await loadState(flow, sourceUuid))?.counter).toBe(1);
  expect((await loadState(flow, flow2.state.id))?.counter).toBe(2);
});

peer(`${FILE}::test_akickoff_pinned_fork`, async () => {
  const persistence = sqlitePersistence();
  const flow = counterFlow('PinnableAsyncFlow', persistence);
  const flow1 = await flow.kickoff();
  const sourceUuid = flow1.state.id;

  const pinnedUuid = 'pinned-akickoff-fork-uuid';
  const flow2 = await counterFlow('PinnableAsyncFlow', persistence).kickoff({
    inputs: { id: pinnedUuid },
    from: sourceUuid,
  });

  expect(flow2.state.id).toBe(pinnedUuid);
  expect(flow2.state.counter).toBe(2);
  expect((await loadState(flow, sourceUuid))?.counter).toBe(1);
  expect((await loadState(flow, pinnedUuid))?.counter).toBe(2);
});

difference(
  `${FILE}::test_akickoff_fork_conflict_with_from_checkpoint_raises`,
  async () => {
    const { kickoff } = conflictingKickoff('AsyncConflictFlow');
    const error = await kickoff().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(Error);
    const msg = String((error as Error).message);
    expect(msg).toContain('from_checkpoint');
    expect(msg).toContain('restore_from_state_id');
  },
  () => refusesCheckpointOption('AsyncConflictFlow'),
);
