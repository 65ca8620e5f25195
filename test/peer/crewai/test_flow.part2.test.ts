/**
 * CrewAI's `lib/crewai/tests/test_flow.py`, from `test_multiple_routers_from_same_trigger` to the end
 * (the first part is in `test_flow.part1.test.ts`), at the commit in `CREWAI_COMMIT`.
 *
 * How CrewAI's constructs map onto statecrew's:
 * - a `Flow` subclass → `createFlow({ name, initialState })`; the class name → the flow's `name`;
 *   state set in `__init__` → `initialState`; `flow.state` after `kickoff()` → the result's `state`
 *   (a statecrew definition keeps no state: every kickoff is a run of its own).
 * - `@start()` → `.start(name, fn)`; `@listen(x)` → `.listen(name, x, fn)`; `@router(x)` →
 *   `.router(name, x, fn, { routes })`: a statecrew router declares the labels it may return, and a
 *   trigger naming a label must name a declared one (`unknown_trigger` otherwise).
 * - `or_(...)` / `and_(...)` → `or(...)` / `and(...)`; a method reference or a method's name as a
 *   string → the step's name.
 * - A CrewAI listener fires again whenever its trigger is satisfied anew, so its cycles need no
 *   declaration; a statecrew step runs once per run unless `{ maxRuns }` lets it run again, so the
 *   steps of a cycle carry `maxRuns`.
 * - Python's `async def` steps → async functions; `asyncio.sleep` → a turn of the event loop.
 * - `crewai_event_bus` handlers → the run's own `events$` (`flow.run()`).
 * - `Flow.flow_definition()` (CrewAI checks the definition there) → statecrew checks it in the
 *   builder call that makes it wrong.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import {
  and,
  createFlow,
  isStatecrewError,
  or,
  SqliteStore,
  type StatecrewEvent,
} from '../../../src/index.js';
import { difference, nextTurn, peer } from './peer.js';

/** `order.index(name)`, failing clearly when `name` never ran (Python's `index` raises). */
function indexOf(order: readonly string[], name: string): number {
  expect(order).toContain(name);
  return order.indexOf(name);
}

/** What a builder call throws, for asserting a refused definition. */
function thrownBy(build: () => unknown): unknown {
  try {
    build();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('test_flow.py (part 2)', () => {
  peer('test_flow.py::test_multiple_routers_from_same_trigger', async () => {
    const order: string[] = [];
    const flow = createFlow({ name: 'MultiRouterFlow', initialState: { diagnosed_conditions: 'DHA' } })
      .start('scan_medical', () => {
        order.push('scan_medical');
        return 'scan_complete';
      })
      .router(
        'diagnose_conditions',
        'scan_medical',
        () => {
          order.push('diagnose_conditions');
          return 'diagnosis_complete';
        },
        { routes: ['diagnosis_complete'] },
      )
      // CrewAI's routers return None when the condition is absent, emitting nothing; a statecrew router
      // returns one of its routes, here a `no_…` label no step listens to.
      .router(
        'diabetes_router',
        'diagnose_conditions',
        ({ state }) => {
          order.push('diabetes_router');
          return state.diagnosed_conditions.includes('D') ? 'diabetes' : 'no_diabetes';
        },
        { routes: ['diabetes', 'no_diabetes'] },
      )
      .listen('diabetes_analysis', 'diabetes', () => {
        order.push('diabetes_analysis');
        return 'diabetes_analysis_complete';
      })
      .router(
        'hypertension_router',
        'diagnose_conditions',
        ({ state }) => {
          order.push('hypertension_router');
          return state.diagnosed_conditions.includes('H') ? 'hypertension' : 'no_hypertension';
        },
        { routes: ['hypertension', 'no_hypertension'] },
      )
      .listen('hypertension_analysis', 'hypertension', () => {
        order.push('hypertension_analysis');
        return 'hypertension_analysis_complete';
      })
      .router(
        'anemia_router',
        'diagnose_conditions',
        ({ state }) => {
          order.push('anemia_router');
          return state.diagnosed_conditions.includes('A') ? 'anemia' : 'no_anemia';
        },
        { routes: ['anemia', 'no_anemia'] },
      )
      .listen('anemia_analysis', 'anemia', () => {
        order.push('anemia_analysis');
        return 'anemia_analysis_complete';
      });

    const out = await flow.kickoff();
    expect(out.status).toBe('completed');

    expect(order).toContain('scan_medical');
    expect(order).toContain('diagnose_conditions');
    expect(order).toContain('diabetes_router');
    expect(order).toContain('hypertension_router');
    expect(order).toContain('anemia_router');
    expect(order).toContain('diabetes_analysis');
    expect(order).toContain('hypertension_analysis');
    expect(order).toContain('anemia_analysis');

    expect(indexOf(order, 'diagnose_conditions')).toBeGreaterThan(indexOf(order, 'scan_medical'));
    for (const router of ['diabetes_router', 'hypertension_router', 'anemia_router']) {
      expect(indexOf(order, router)).toBeGreaterThan(indexOf(order, 'diagnose_conditions'));
    }
    expect(indexOf(order, 'diabetes_analysis')).toBeGreaterThan(indexOf(order, 'diabetes_router'));
    expect(indexOf(order, 'hypertension_analysis')).toBeGreaterThan(indexOf(order, 'hypertension_router'));
    expect(indexOf(order, 'anemia_analysis')).toBeGreaterThan(indexOf(order, 'anemia_router'));
  });

  peer('test_flow.py::test_flow_name', () => {
    // CrewAI's `name = "MyFlow"` class attribute → createFlow's `name`.
    const flow = createFlow({ name: 'MyFlow', initialState: {} }).start('start', () => 'Hello, world!');
    expect(flow.name).toBe('MyFlow');
  });

  peer('test_flow.py::test_flow_custom_name_overrides_class_name_in_events', async () => {
    // CrewAI's class InternalFlowClass with `name = "PublicName"`: statecrew has only the name.
    // `FlowStartedEvent.flow_name` on the event bus → `name` on the run's first event, `run.started`.
    const flow = createFlow({ name: 'PublicName', initialState: {} }).start('begin', () => 'done');
    const received: StatecrewEvent[] = [];
    const run = flow.run();
    run.events$.subscribe((event) => {
      if (event.type === 'run.started') received.push(event);
    });
    await run.result;
    expect(received).toHaveLength(1);
    expect((received[0] as { name?: unknown } | undefined)?.name).toBe('PublicName');
  });

  peer('test_flow.py::test_nested_and_or_conditions', async () => {
    const order: string[] = [];
    const flow = createFlow({ name: 'NestedConditionFlow', initialState: {} })
      .start('method_1', () => {
        order.push('method_1');
      })
      .listen('method_2', 'method_1', () => {
        order.push('method_2');
      })
      // CrewAI's method_3 declares nothing and returns "b_condition"; statecrew's router declares the
      // labels it may return, "a_condition" among them, which method_7's trigger names.
      .router(
        'method_3',
        'method_2',
        () => {
          order.push('method_3');
          return 'b_condition';
        },
        { routes: ['a_condition', 'b_condition'] },
      )
      .listen('method_5', 'b_condition', () => {
        order.push('method_5');
      })
      .listen('method_4', 'method_5', async () => {
        order.push('method_4');
      })
      .listen('method_6', or('a_condition', 'b_condition'), async () => {
        order.push('method_6');
      })
      .listen('method_7', or(and('a_condition', 'method_6'), and('method_6', 'method_4')), () => {
        order.push('method_7');
      })
      .listen('method_8', 'method_7', async () => {
        order.push('method_8');
      });

    await flow.kickoff();

    for (const name of [
      'method_1',
      'method_2',
      'method_3',
      'method_5',
      'method_4',
      'method_6',
      'method_7',
      'method_8',
    ]) {
      expect(order).toContain(name);
    }
    expect(indexOf(order, 'method_7')).toBeGreaterThan(indexOf(order, 'method_6'));
    expect(indexOf(order, 'method_7')).toBeGreaterThan(indexOf(order, 'method_4'));
    expect(indexOf(order, 'method_8')).toBeGreaterThan(indexOf(order, 'method_7'));
  });

  peer('test_flow.py::test_diamond_dependency_pattern', async () => {
    const order: string[] = [];
    const flow = createFlow({ name: 'DiamondFlow', initialState: {} })
      .start('start', () => {
        order.push('start');
        return 'started';
      })
      .listen('path_a', 'start', () => {
        order.push('path_a');
        return 'a_done';
      })
      .listen('path_b', 'start', () => {
        order.push('path_b');
        return 'b_done';
      })
      .listen('converge', and('path_a', 'path_b'), () => {
        order.push('converge');
        return 'converged';
      });

    await flow.kickoff();

    expect(order[0]).toBe('start');
    expect(order).toContain('path_a');
    expect(order).toContain('path_b');
    expect(indexOf(order, 'path_a')).toBeGreaterThan(indexOf(order, 'start'));
    expect(indexOf(order, 'path_b')).toBeGreaterThan(indexOf(order, 'start'));
    expect(order.at(-1)).toBe('converge');
    expect(indexOf(order, 'converge')).toBeGreaterThan(indexOf(order, 'path_a'));
    expect(indexOf(order, 'converge')).toBeGreaterThan(indexOf(order, 'path_b'));
  });

  peer('test_flow.py::test_router_cascade_chain', async () => {
    const order: string[] = [];
    const flow = createFlow({ name: 'RouterCascadeFlow', initialState: { level: 1 } })
      .start('begin', () => {
        order.push('begin');
        return 'started';
      })
      .router(
        'router_level_1',
        'begin',
        () => {
          order.push('router_level_1');
          return 'level_1_path';
        },
        { routes: ['level_1_path'] },
      )
      .listen('process_level_1', 'level_1_path', ({ state }) => {
        order.push('process_level_1');
        state.level = 2;
        return 'level_1_done';
      })
      .router(
        'router_level_2',
        'process_level_1',
        () => {
          order.push('router_level_2');
          return 'level_2_event';
        },
        { routes: ['level_2_event'] },
      )
      .listen('process_level_2', 'level_2_event', ({ state }) => {
        order.push('process_level_2');
        state.level = 3;
        return 'level_2_done';
      })
      .router(
        'router_level_3',
        'process_level_2',
        () => {
          order.push('router_level_3');
          return 'final_event';
        },
        { routes: ['final_event'] },
      )
      .listen('finalize', 'final_event', () => {
        order.push('finalize');
        return 'complete';
      });

    const out = await flow.kickoff();

    expect(order).toEqual([
      'begin',
      'router_level_1',
      'process_level_1',
      'router_level_2',
      'process_level_2',
      'router_level_3',
      'finalize',
    ]);
    expect(out.state.level).toBe(3);
  });

  peer('test_flow.py::test_complex_and_or_branching', async () => {
    const order: string[] = [];
    const record = (name: string) => () => {
      order.push(name);
    };
    const flow = createFlow({ name: 'ComplexBranchingFlow', initialState: {} })
      .start('init', record('init'))
      .listen('branch_1a', 'init', record('branch_1a'))
      .listen('branch_1b', 'init', record('branch_1b'))
      .listen('branch_1c', 'init', record('branch_1c'))
      .listen('branch_2a', and('branch_1a', 'branch_1b'), record('branch_2a'))
      .listen('branch_2b', or('branch_1a', 'branch_1b', 'branch_1c'), record('branch_2b'))
      .listen('final', and('branch_2a', 'branch_2b'), record('final'));

    await flow.kickoff();

    for (const name of ['init', 'branch_1a', 'branch_1b', 'branch_1c', 'branch_2a', 'branch_2b', 'final']) {
      expect(order).toContain(name);
    }
    expect(indexOf(order, 'branch_2a')).toBeGreaterThan(indexOf(order, 'branch_1a'));
    expect(indexOf(order, 'branch_2a')).toBeGreaterThan(indexOf(order, 'branch_1b'));
    const firstOfBranch1 = Math.min(
      indexOf(order, 'branch_1a'),
      indexOf(order, 'branch_1b'),
      indexOf(order, 'branch_1c'),
    );
    expect(indexOf(order, 'branch_2b')).toBeGreaterThan(firstOfBranch1);
    expect(indexOf(order, 'final')).toBeGreaterThan(indexOf(order, 'branch_2a'));
    expect(indexOf(order, 'final')).toBeGreaterThan(indexOf(order, 'branch_2b'));
  });

  peer('test_flow.py::test_conditional_router_events_exclusivity', async () => {
    const order: string[] = [];
    const flow = createFlow({ name: 'ConditionalRouterFlow', initialState: { condition: 'take_event_b' } })
      .start('begin', () => {
        order.push('begin');
      })
      .router(
        'decision_point',
        'begin',
        ({ state }) => {
          order.push('decision_point');
          if (state.condition === 'take_event_a') return 'event_a';
          if (state.condition === 'take_event_b') return 'event_b';
          return 'event_c';
        },
        { routes: ['event_a', 'event_b', 'event_c'] },
      )
      .listen('handle_event_a', 'event_a', () => {
        order.push('handle_event_a');
      })
      .listen('handle_event_b', 'event_b', () => {
        order.push('handle_event_b');
      })
      .listen('handle_event_c', 'event_c', () => {
        order.push('handle_event_c');
      });

    await flow.kickoff();

    expect(order).toContain('begin');
    expect(order).toContain('decision_point');
    expect(order).toContain('handle_event_b');
    expect(order).not.toContain('handle_event_a');
    expect(order).not.toContain('handle_event_c');
  });

  peer('test_flow.py::test_and_join_waits_for_parallel_branches', async () => {
    // CrewAI records under a threading.Lock; one JavaScript thread needs none.
    const order: string[] = [];
    const record = (name: string) => () => {
      order.push(name);
    };
    const flow = createFlow({ name: 'StateConsistencyFlow', initialState: {} })
      .start('init', record('init'))
      .listen('branch_a', 'init', record('branch_a'))
      .listen('branch_b', 'init', record('branch_b'))
      .listen('verify_state', and('branch_a', 'branch_b'), record('verify_state'));

    await flow.kickoff();

    expect(order).toContain('branch_a');
    expect(order).toContain('branch_b');
    expect(order).toContain('verify_state');
    expect(indexOf(order, 'branch_a')).toBeLessThan(indexOf(order, 'verify_state'));
    expect(indexOf(order, 'branch_b')).toBeLessThan(indexOf(order, 'verify_state'));
  });

  peer('test_flow.py::test_deeply_nested_conditions', async () => {
    const order: string[] = [];
    const record = (name: string) => () => {
      order.push(name);
    };
    const flow = createFlow({ name: 'DeeplyNestedFlow', initialState: {} })
      .start('a', record('a'))
      .start('b', record('b'))
      .start('c', record('c'))
      .start('d', record('d'))
      .listen('result', or(and('a', 'b'), and('c', 'd')), record('result'));

    await flow.kickoff();

    for (const name of ['a', 'b', 'c', 'd', 'result']) expect(order).toContain(name);
    const at = (name: string) => indexOf(order, name);
    const abSatisfied = at('result') > at('a') && at('result') > at('b');
    const cdSatisfied = at('result') > at('c') && at('result') > at('d');
    expect(abSatisfied || cdSatisfied).toBe(true);
  });

  peer('test_flow.py::test_or_branch_does_not_leave_stale_and_state', async () => {
    const fired: string[] = [];
    const flow = createFlow({ name: 'StaleStateFlow', initialState: {} })
      .start('begin', () => undefined)
      .listen('a', 'begin', () => undefined)
      .listen('c', 'begin', () => undefined)
      .listen('x', and('a', 'c'), () => undefined)
      // A CrewAI listener fires whenever its trigger is satisfied anew; `maxRuns` lets this one do
      // the same, so what keeps it to one run is its and-state, not statecrew's run-once default.
      .listen(
        'joined',
        or(and('a', 'x'), and('c', 'y')),
        () => {
          fired.push('joined');
        },
        { maxRuns: 2 },
      )
      .router('emit_y', 'joined', () => 'y', { routes: ['y'] });

    const out = await flow.kickoff();

    expect(out.status).toBe('completed');
    expect(fired).toEqual(['joined']);
  });

  difference(
    'test_flow.py::test_and_branch_inside_or_does_not_race',
    async () => {
      const order: string[] = [];
      const record = (name: string) => () => {
        order.push(name);
      };
      // "fallback" is a label no step or router of the flow declares.
      const flow = createFlow({ name: 'DiamondWithFallbackFlow', initialState: {} })
        .start('go', record('go'))
        .listen('a', 'go', record('a'))
        .listen('b', 'go', record('b'))
        .listen('done', or(and('a', 'b'), 'fallback'), record('done'));

      await flow.kickoff();

      expect(order).toContain('done');
      expect(indexOf(order, 'done')).toBeGreaterThan(indexOf(order, 'a'));
      expect(indexOf(order, 'done')).toBeGreaterThan(indexOf(order, 'b'));
    },
    async () => {
      const order: string[] = [];
      const record = (name: string) => () => {
        order.push(name);
      };
      const dangling = createFlow({ name: 'DiamondWithFallbackFlow', initialState: {} })
        .start('go', record('go'))
        .listen('a', 'go', record('a'))
        .listen('b', 'go', record('b'))
        .listen('done', or(and('a', 'b'), 'fallback'), record('done'));
      const refused = await dangling.kickoff().catch((error: unknown) => error);
      expect(isStatecrewError(refused, 'unknown_trigger')).toBe(true);
      expect((refused as Error).message).toContain('"fallback"');
      expect(order).toEqual([]);

      // With "fallback" declared by a router, the and inside the or still waits for both branches.
      const declared = createFlow({ name: 'DiamondWithFallbackFlow', initialState: {} })
        .start('go', record('go'))
        .router('check', 'go', () => 'proceed', { routes: ['proceed', 'fallback'] })
        .listen('a', 'go', record('a'))
        .listen('b', 'go', record('b'))
        .listen('done', or(and('a', 'b'), 'fallback'), record('done'));
      await declared.kickoff();
      expect(indexOf(order, 'done')).toBeGreaterThan(indexOf(order, 'a'));
      expect(indexOf(order, 'done')).toBeGreaterThan(indexOf(order, 'b'));
    },
  );

  peer('test_flow.py::test_mixed_sync_async_execution_order', async () => {
    const order: string[] = [];
    const flow = createFlow({ name: 'MixedSyncAsyncFlow', initialState: {} })
      .start('sync_start', () => {
        order.push('sync_start');
      })
      .listen('async_step_1', 'sync_start', async () => {
        order.push('async_step_1');
        await nextTurn();
      })
      .listen('sync_step_2', 'async_step_1', () => {
        order.push('sync_step_2');
      })
      .listen('async_step_3', 'sync_step_2', async () => {
        order.push('async_step_3');
        await nextTurn();
      })
      .listen('sync_final', 'async_step_3', () => {
        order.push('sync_final');
      });

    // CrewAI's kickoff_async: statecrew's kickoff always returns a promise.
    await flow.kickoff();

    expect(order).toEqual(['sync_start', 'async_step_1', 'sync_step_2', 'async_step_3', 'sync_final']);
  });

  // CrewAI's `_copy_state()` copies the state a Flow instance holds; a statecrew definition holds
  // none: the copy is the one every kickoff takes of `initialState`, which a start step sees first.
  difference(
    'test_flow.py::test_flow_copy_state_with_unpickleable_objects',
    async () => {
      // threading.RLock → an object that holds a function, which no deep copy can take.
      const lock = { held: false, release: () => undefined };
      let copied: { counter: number; lock: unknown } | undefined;
      const flow = createFlow({
        name: 'FlowWithRLock',
        initialState: { counter: 0, lock } as { counter: number; lock: unknown },
      })
        .start('step_1', ({ state }) => {
          copied = { counter: state.counter, lock: state.lock };
          state.counter += 1;
        })
        .listen('step_2', 'step_1', ({ state }) => {
          state.counter += 1;
        });
      await flow.kickoff();
      expect(copied?.counter).toBe(0);
      expect(copied?.lock).toBeDefined();
    },
    () => {
      const lock = { held: false, release: () => undefined };
      const refused = thrownBy(() =>
        createFlow({ name: 'FlowWithRLock', initialState: { counter: 0, lock } }),
      );
      expect(isStatecrewError(refused, 'invalid_option')).toBe(true);
      expect((refused as Error).message).toContain('initialState');
    },
  );

  peer('test_flow.py::test_flow_copy_state_with_nested_unpickleable_objects', async () => {
    // Values no deep copy can take (a function for the RLock, a symbol for the Lock), put into the
    // state by the steps themselves.
    const flow = createFlow({
      name: 'FlowWithNestedUnpickleable',
      initialState: { data: {} as Record<string, unknown>, items: [] as unknown[] },
    })
      .start('step_1', ({ state }) => {
        state.data.lock = () => undefined;
        state.data.value = 42;
      })
      .listen('step_2', 'step_1', ({ state }) => {
        state.items.push(Symbol('lock'));
        state.items.push('normal_value');
      });

    const out = await flow.kickoff();

    expect(out.state.data.value).toBe(42);
    expect(out.state.items).toHaveLength(2);
  });

  peer('test_flow.py::test_flow_copy_state_without_unpickleable_objects', async () => {
    const initial = { counter: 0, data: '', nested: {} as Record<string, string> };
    let copied: typeof initial | undefined;
    // CrewAI's step_1 never runs here; statecrew's copy is taken by a kickoff, whose start step only
    // keeps the state it starts from.
    const flow = createFlow({ name: 'NormalFlow', initialState: initial }).start('step_1', ({ state }) => {
      copied = state;
    });
    initial.counter = 10;
    initial.data = 'modified';
    initial.nested.key = 'modified';

    await flow.kickoff();
    expect(copied?.counter).toBe(10);
    expect(copied?.data).toBe('modified');
    expect(copied?.nested.key).toBe('modified');

    initial.nested.key = 'changed_after_copy';
    expect(copied?.nested.key).toBe('modified');
  });

  peer('test_flow.py::test_flow_copy_state_with_dict_state', async () => {
    const initial: Record<string, unknown> = {};
    let copied: Record<string, unknown> | undefined;
    // As above: the kickoff's copy, the state the start step runs on (CrewAI's step_1 never runs).
    const flow = createFlow({ name: 'DictFlow', initialState: initial }).start('step_1', ({ state }) => {
      copied = state;
    });
    initial.test = 'value';

    await flow.kickoff();
    expect(copied?.test).toBe('value');

    initial.test = 'modified';
    expect(copied?.test).toBe('value');
  });

  // TestFlowAkickoff: CrewAI's `akickoff` (a native coroutine beside the synchronous `kickoff`) →
  // statecrew's one `kickoff`, which returns a promise; `kickoff_async` → `run().result`.
  peer('test_flow.py::test_akickoff_basic', async () => {
    const executionOrder: string[] = [];
    const flow = createFlow({ name: 'SimpleFlow', initialState: {} })
      .start('step_1', () => {
        executionOrder.push('step_1');
        return 'step_1_result';
      })
      .listen('step_2', 'step_1', () => {
        executionOrder.push('step_2');
        return 'final_result';
      });
    const result = await flow.kickoff();

    expect(executionOrder).toEqual(['step_1', 'step_2']);
    expect(result.output).toBe('final_result');
  });

  peer('test_flow.py::test_akickoff_with_inputs', async () => {
    // `self.state.get("value", "default")`: a free state takes the kickoff's inputs.
    const flow = createFlow<{ value?: string }>({ name: 'InputFlow', initialState: {} }).start(
      'process_input',
      ({ state }) => state.value ?? 'default',
    );
    const result = await flow.kickoff({ inputs: { value: 'custom_value' } });

    expect(result.output).toBe('custom_value');
  });

  peer('test_flow.py::test_akickoff_with_async_methods', async () => {
    const executionOrder: string[] = [];
    const flow = createFlow({ name: 'AsyncMethodFlow', initialState: {} })
      .start('async_step_1', async () => {
        executionOrder.push('async_step_1');
        await nextTurn();
        return 'async_result';
      })
      .listen('async_step_2', 'async_step_1', async ({ payload }) => {
        executionOrder.push('async_step_2');
        await nextTurn();
        return `final_${String(payload)}`;
      });
    const result = await flow.kickoff();

    expect(executionOrder).toEqual(['async_step_1', 'async_step_2']);
    expect(result.output).toBe('final_async_result');
  });

  peer('test_flow.py::test_akickoff_equivalent_to_kickoff_async', async () => {
    // CrewAI's flow takes the list it appends to in `__init__`: here, a flow made around the list.
    const testFlow = (executionList: string[]) =>
      createFlow({ name: 'TestFlow', initialState: {} })
        .start('step_1', () => {
          executionList.push('step_1');
          return 'result_1';
        })
        .listen('step_2', 'step_1', () => {
          executionList.push('step_2');
          return 'result_2';
        });
    const executionOrderAkickoff: string[] = [];
    const executionOrderKickoffAsync: string[] = [];
    const result1 = await testFlow(executionOrderAkickoff).kickoff();
    const result2 = await testFlow(executionOrderKickoffAsync).run().result;

    expect(executionOrderAkickoff).toEqual(executionOrderKickoffAsync);
    expect(result1.output).toEqual(result2.output);
  });

  peer('test_flow.py::test_akickoff_with_multiple_starts', async () => {
    const executionOrder: string[] = [];
    const flow = createFlow({ name: 'MultiStartFlow', initialState: {} })
      .start('start_a', () => {
        executionOrder.push('start_a');
      })
      .start('start_b', () => {
        executionOrder.push('start_b');
      });
    await flow.kickoff();

    expect(executionOrder).toContain('start_a');
    expect(executionOrder).toContain('start_b');
  });

  peer('test_flow.py::test_akickoff_with_router', async () => {
    const executionOrder: string[] = [];
    const flow = createFlow({ name: 'RouterFlow', initialState: {} })
      .start('begin', () => {
        executionOrder.push('begin');
        return 'data';
      })
      .router(
        'route',
        'begin',
        () => {
          executionOrder.push('route');
          return 'PATH_A' as const;
        },
        { routes: ['PATH_A'] },
      )
      .listen('handle_path_a', 'PATH_A', () => {
        executionOrder.push('path_a');
        return 'path_a_result';
      });
    const result = await flow.kickoff();

    expect(executionOrder).toEqual(['begin', 'route', 'path_a']);
    expect(result.output).toBe('path_a_result');
  });

  peer('test_flow.py::test_cyclic_flow_or_listeners_fire_every_iteration', async () => {
    const order: string[] = [];
    const maxIterations = 3;
    // CrewAI's `iteration` instance attribute → the run's state; the cycle's steps carry `maxRuns`.
    const again = { maxRuns: 10 };
    const flow = createFlow({ name: 'CyclicOrFlow', initialState: { iteration: 0 } })
      .start('begin', () => {
        order.push('begin');
      })
      .router(
        'route',
        or('begin', 'loop_back'),
        ({ state }) => {
          state.iteration += 1;
          order.push(`route_${state.iteration}`);
          if (state.iteration <= maxIterations) return state.iteration % 2 === 1 ? 'type_a' : 'type_b';
          return 'done';
        },
        { routes: ['type_a', 'type_b', 'done'], ...again },
      )
      .listen(
        'handler_a',
        'type_a',
        ({ state }) => {
          order.push(`handler_a_${state.iteration}`);
        },
        again,
      )
      .listen(
        'handler_b',
        'type_b',
        ({ state }) => {
          order.push(`handler_b_${state.iteration}`);
        },
        again,
      )
      .listen(
        'merge',
        or('handler_a', 'handler_b'),
        ({ state }) => {
          order.push(`merge_${state.iteration}`);
        },
        again,
      )
      .listen(
        'loop_back',
        'merge',
        ({ state }) => {
          order.push(`loop_back_${state.iteration}`);
        },
        again,
      );

    const out = await flow.kickoff();
    expect(out.status).toBe('completed');

    const fires = (prefix: string) => order.filter((entry) => entry.startsWith(prefix));
    expect(fires('merge_'), `merge should fire every iteration: ${order.join(', ')}`).toHaveLength(3);
    expect(fires('loop_back_'), `loop_back should fire every iteration: ${order.join(', ')}`).toHaveLength(3);
    expect(fires('handler_a_')).toHaveLength(2);
    expect(fires('handler_b_')).toHaveLength(1);
  });

  peer('test_flow.py::test_cyclic_flow_multiple_or_listeners_fire_every_iteration', async () => {
    const order: string[] = [];
    const maxIterations = 3;
    const again = { maxRuns: 10 };
    const flow = createFlow({ name: 'MultiOrCyclicFlow', initialState: { iteration: 0 } })
      .start('begin', () => {
        order.push('begin');
      })
      // `store` listens for "type_b" and "type_c" too, which CrewAI's classify could return as well:
      // statecrew's router declares them.
      .router(
        'classify',
        or('begin', 'capture'),
        ({ state }) => {
          state.iteration += 1;
          order.push(`classify_${state.iteration}`);
          return state.iteration <= maxIterations ? 'type_a' : 'exit';
        },
        { routes: ['type_a', 'type_b', 'type_c', 'exit'], ...again },
      )
      .listen(
        'handle_type_a',
        'type_a',
        ({ state }) => {
          order.push(`handle_a_${state.iteration}`);
        },
        again,
      )
      .listen(
        'store',
        or('type_a', 'type_b', 'type_c'),
        ({ state }) => {
          order.push(`store_${state.iteration}`);
        },
        again,
      )
      .listen(
        'send',
        or('handle_type_a'),
        ({ state }) => {
          order.push(`send_${state.iteration}`);
        },
        again,
      )
      .listen(
        'capture',
        'send',
        ({ state }) => {
          order.push(`capture_${state.iteration}`);
        },
        again,
      );

    const out = await flow.kickoff();
    expect(out.status).toBe('completed');

    for (const method of ['store', 'send', 'capture']) {
      const fires = order.filter((entry) => entry.startsWith(`${method}_`));
      expect(fires, `'${method}' should fire every iteration: ${order.join(', ')}`).toHaveLength(3);
    }
  });

  peer('test_flow.py::test_cyclic_flow_works_with_persist_and_id_input', async () => {
    const order: string[] = [];
    const maxIterations = 3;
    const again = { maxRuns: 10 };
    // CrewAI's SQLiteFlowPersistence → a SQLite store.
    const store = new SqliteStore({ path: ':memory:' });
    try {
      const flow = createFlow({ name: 'PersistCyclicFlow', initialState: { iteration: 0 }, store })
        .start('begin', () => {
          order.push('begin');
        })
        .router(
          'classify',
          or('begin', 'capture'),
          ({ state }) => {
            state.iteration += 1;
            order.push(`classify_${state.iteration}`);
            return state.iteration <= maxIterations ? 'type_a' : 'exit';
          },
          { routes: ['type_a', 'exit'], ...again },
        )
        .listen(
          'handle',
          'type_a',
          ({ state }) => {
            order.push(`handle_${state.iteration}`);
          },
          again,
        )
        .listen(
          'send',
          or('handle'),
          ({ state }) => {
            order.push(`send_${state.iteration}`);
          },
          again,
        )
        .listen(
          'capture',
          'send',
          ({ state }) => {
            order.push(`capture_${state.iteration}`);
          },
          again,
        )
        .listen('finish', 'exit', () => {
          order.push('finish');
        });

      await flow.kickoff({ inputs: { id: randomUUID() } });

      expect(order, `Flow should have reached 'finish', got: ${order.join(', ')}`).toContain('finish');
      const classified = order.filter((entry) => entry.startsWith('classify_'));
      expect(
        classified,
        `'classify' should fire 4 times (3 cycles + exit): ${order.join(', ')}`,
      ).toHaveLength(4);
      for (const method of ['handle', 'send', 'capture']) {
        const fires = order.filter((entry) => entry.startsWith(`${method}_`));
        expect(fires, `'${method}' should fire 3 times: ${order.join(', ')}`).toHaveLength(3);
      }
    } finally {
      await store.close();
    }
  });

  // CrewAI raises ValueError("Invalid flow definition for <Flow> …") from `flow_definition()`;
  // statecrew refuses the definition in the builder call that makes it wrong, with a coded error
  // whose message names the flow.
  peer('test_flow.py::test_self_listening_method_is_rejected', () => {
    const refused = thrownBy(() =>
      createFlow({ name: 'SelfListenFlow', initialState: {} })
        .start('begin', () => 'process')
        .router('route', 'begin', () => 'process', { routes: ['process'] })
        .listen('process', 'process', () => undefined),
    );
    expect(isStatecrewError(refused)).toBe(true);
    expect((refused as Error).message).toMatch(/SelfListenFlow/);
  });

  peer('test_flow.py::test_or_condition_self_listen_is_rejected', () => {
    const refused = thrownBy(() =>
      createFlow({ name: 'OrSelfListenFlow', initialState: {} })
        .start('begin', () => 'process')
        .router('route', 'begin', () => 'process', { routes: ['process'] })
        .listen('process', or('other_trigger', 'process'), () => undefined),
    );
    expect(isStatecrewError(refused)).toBe(true);
    expect((refused as Error).message).toMatch(/OrSelfListenFlow/);
  });

  peer('test_flow.py::test_router_self_listening_method_is_rejected', () => {
    const refused = thrownBy(() =>
      createFlow({ name: 'RouterSelfListenFlow', initialState: {} })
        .start('begin', () => 'route')
        .router('route', 'route', () => 'done', { routes: ['done'] }),
    );
    expect(isStatecrewError(refused)).toBe(true);
    expect((refused as Error).message).toMatch(/RouterSelfListenFlow/);
  });

  // test_locked_list_proxy_* / test_locked_dict_proxy_* and
  // test_flow_drains_pending_memory_saves_before_finished_event: not ported, see docs/crewai.md.
});
