/**
 * CrewAI's `lib/crewai/tests/test_flow.py`, its tests from `test_simple_sequential_flow` to
 * `test_flow_plotting` (the rest of the file is in `test_flow.part2.test.ts`), ported from
 * crewAIInc/crewAI at commit f4731f5025f861c78e3af0487cc80bf5e7c64782 (`CREWAI_COMMIT`).
 *
 * How CrewAI's constructs map to statecrew's:
 * - a `Flow` subclass → `createFlow({ name, initialState })` (a pydantic state → `state: zodSchema`);
 *   its methods → steps named like them; `flow.kickoff()`'s return value → `out.output`;
 *   `kickoff_async` → `kickoff` (statecrew's kickoff is always asynchronous).
 * - `@start()` → `.start(name, fn)`; `@listen(x)` → `.listen(name, x, fn)`; `@router(x)` →
 *   `.router(name, x, fn, { routes })`: a statecrew router declares its labels (CrewAI's `emit=[...]`
 *   when the test gives it, else the labels its method returns). `or_`/`and_` → `or`/`and`.
 * - a method's parameter (the triggering method's result) → the step's `payload`.
 * - `self.state`, and attributes set on the flow object, → the run's `state`, read after the run from
 *   `out.state`: a statecrew flow object is a definition and every kickoff a new run with its own state.
 * - `crewai_trigger_payload`, injected into a start method that names that parameter → the start step
 *   reads `inputs.crewai_trigger_payload` (a step gets the run's inputs as `inputs`).
 * - a start method with a condition (`@start("label")`) → a listener of that label: statecrew's start
 *   steps take no trigger. Where CrewAI also runs it at kickoff (a flow with no unconditional start), it
 *   listens to `or(<a start step with an empty body>, label)`.
 * - a start method that is also a router (`@start() @router(...)`) → a start step with an empty body and
 *   a router listening to it: statecrew's routers have a trigger.
 * - a method that runs again in a cycle → `{ maxRuns: Infinity }`: statecrew runs a step once per run
 *   unless told it may run again (CrewAI sets no bound, so neither do these ports).
 * - assertions inside a method → `expect` inside the step: a failing one fails the step, so each such
 *   port also checks `out.status` (CrewAI's `kickoff` would raise).
 * - CrewAI's event bus → the run's `events$`: `FlowStartedEvent` ↔ `run.started`,
 *   `MethodExecutionStartedEvent` / `MethodExecutionFinishedEvent` ↔ `flow.step` with status `started` /
 *   `completed` (`method_name` ↔ `name`, `params` ↔ the step's payload, `result` ↔ `output`),
 *   `FlowFinishedEvent` ↔ `run.completed`, `timestamp` ↔ `at` (epoch ms).
 */
import { expect } from 'vitest';
import { z } from 'zod';
import {
  and,
  createFlow,
  type FlowOutput,
  type FlowRunOptions,
  or,
  type StatecrewEvent,
} from '../../../src/index.js';
import { renderRunView, toFlowView } from '../../../src/view/index.js';
import { difference, nextTurn, peer } from './peer.js';

/** A promise the test resolves by hand, to order steps of one round without timers. */
function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** The flow of `run`'s events it sent, and its result. */
async function runCollecting<S>(
  flow: {
    run(options?: FlowRunOptions): {
      events$: { subscribe(fn: (e: StatecrewEvent) => void): unknown };
      result: Promise<FlowOutput<S>>;
    };
  },
  options: FlowRunOptions = {},
): Promise<{ events: StatecrewEvent[]; out: FlowOutput<S> }> {
  const run = flow.run(options);
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((event) => events.push(event));
  const out = await run.result;
  return { events, out };
}

/**
 * The events CrewAI's handlers of these tests listen to, in order: a run's start and end, and its
 * steps' starts (and ends, with `finished`).
 */
function flowEvents(events: StatecrewEvent[], finished: boolean): StatecrewEvent[] {
  return events.filter(
    (event) =>
      event.type === 'run.started' ||
      event.type === 'run.completed' ||
      (event.type === 'flow.step' &&
        (event.status === 'started' || (finished && event.status === 'completed'))),
  );
}

/** An event's fields by name, for the fields CrewAI's events carry that statecrew's type does not. */
function fields(event: StatecrewEvent | undefined): Record<string, unknown> {
  return (event ?? {}) as Record<string, unknown>;
}

/** A flow.step event's step name (CrewAI's `method_name`). */
function stepName(event: StatecrewEvent | undefined): string | undefined {
  return event?.type === 'flow.step' ? event.name : undefined;
}

peer('test_flow.py::test_simple_sequential_flow', async () => {
  const executionOrder: string[] = [];
  const flow = createFlow({ name: 'SimpleFlow', initialState: {} })
    .start('step_1', () => {
      executionOrder.push('step_1');
    })
    .listen('step_2', 'step_1', () => {
      executionOrder.push('step_2');
    });
  await flow.kickoff();
  expect(executionOrder).toEqual(['step_1', 'step_2']);
});

peer('test_flow.py::test_flow_with_multiple_starts', async () => {
  const executionOrder: string[] = [];
  const flow = createFlow({ name: 'MultiStartFlow', initialState: {} })
    .start('step_a', () => {
      executionOrder.push('step_a');
    })
    .start('step_b', () => {
      executionOrder.push('step_b');
    })
    .listen('step_c', 'step_a', () => {
      executionOrder.push('step_c');
    })
    .listen('step_d', 'step_b', () => {
      executionOrder.push('step_d');
    });
  await flow.kickoff();
  expect(executionOrder).toContain('step_a');
  expect(executionOrder).toContain('step_b');
  expect(executionOrder).toContain('step_c');
  expect(executionOrder).toContain('step_d');
  expect(executionOrder.indexOf('step_c')).toBeGreaterThan(executionOrder.indexOf('step_a'));
  expect(executionOrder.indexOf('step_d')).toBeGreaterThan(executionOrder.indexOf('step_b'));
});

peer('test_flow.py::test_cyclic_flow', async () => {
  const executionOrder: string[] = [];
  // `@start("loop") step_1`, in a flow with no unconditional start: CrewAI runs it at kickoff and on
  // every "loop"; here it listens to an empty start step or "loop", and may run again (maxRuns).
  const again = { maxRuns: Number.POSITIVE_INFINITY };
  const flow = createFlow({ name: 'CyclicFlow', initialState: { iteration: 0, max_iterations: 3 } })
    .start('begin', () => undefined)
    .listen(
      'step_1',
      or('begin', 'loop'),
      ({ state }) => {
        if (state.iteration >= state.max_iterations) return; // Do not proceed further
        executionOrder.push(`step_1_${state.iteration}`);
      },
      again,
    )
    .listen(
      'step_2',
      'step_1',
      ({ state }) => {
        executionOrder.push(`step_2_${state.iteration}`);
      },
      again,
    )
    .router(
      'step_3',
      'step_2',
      ({ state }) => {
        executionOrder.push(`step_3_${state.iteration}`);
        state.iteration += 1;
        if (state.iteration < state.max_iterations) return 'loop';
        return 'exit';
      },
      { routes: ['loop', 'exit'], ...again },
    );
  const out = await flow.kickoff();

  const expectedOrder: string[] = [];
  for (let i = 0; i < out.state.max_iterations; i += 1) {
    expectedOrder.push(`step_1_${i}`, `step_2_${i}`, `step_3_${i}`);
  }
  expect(executionOrder).toEqual(expectedOrder);
});

peer('test_flow.py::test_flow_with_and_condition', async () => {
  const executionOrder: string[] = [];
  const flow = createFlow({ name: 'AndConditionFlow', initialState: {} })
    .start('step_1', () => {
      executionOrder.push('step_1');
    })
    .start('step_2', () => {
      executionOrder.push('step_2');
    })
    .listen('step_3', and('step_1', 'step_2'), () => {
      executionOrder.push('step_3');
    });
  await flow.kickoff();
  expect(executionOrder).toContain('step_1');
  expect(executionOrder).toContain('step_2');
  expect(executionOrder.at(-1)).toBe('step_3');
  expect(executionOrder.indexOf('step_3')).toBeGreaterThan(executionOrder.indexOf('step_1'));
  expect(executionOrder.indexOf('step_3')).toBeGreaterThan(executionOrder.indexOf('step_2'));
});

peer('test_flow.py::test_flow_with_or_condition', async () => {
  const executionOrder: string[] = [];
  const flow = createFlow({ name: 'OrConditionFlow', initialState: {} })
    .start('step_a', () => {
      executionOrder.push('step_a');
    })
    .start('step_b', () => {
      executionOrder.push('step_b');
    })
    .listen('step_c', or('step_a', 'step_b'), () => {
      executionOrder.push('step_c');
    });
  await flow.kickoff();
  expect(executionOrder.includes('step_a') || executionOrder.includes('step_b')).toBe(true);
  expect(executionOrder).toContain('step_c');
  expect(executionOrder.indexOf('step_c')).toBeGreaterThan(
    Math.min(executionOrder.indexOf('step_a'), executionOrder.indexOf('step_b')),
  );
});

peer('test_flow.py::test_flow_executes_and_condition_with_single_branch_or', async () => {
  const flow = createFlow({ name: 'NestedConditionFlow', initialState: {} })
    .start('event_a', () => 'a')
    .listen('event_b', 'event_a', () => 'b')
    .router('emit_event_c', 'event_b', () => 'event_c', { routes: ['event_c'] })
    .listen('event_d', and('event_a', 'event_b', or('event_c')), () => 'done');
  expect((await flow.kickoff()).output).toBe('done');
});

peer('test_flow.py::test_or_listener_fires_once_across_parallel_starts', async () => {
  let fireCount = 0;
  // CrewAI's slow start sleeps 0.2 s; here it finishes only after the fast one did.
  const fastDone = deferred();
  const flow = createFlow({ name: 'ParallelOrFlow', initialState: {} })
    .start('fast_start', async () => {
      fastDone.resolve();
      return 'fast';
    })
    .start('slow_start', async () => {
      await fastDone.promise;
      await nextTurn();
      return 'slow';
    })
    .listen('handler', or('fast_start', 'slow_start'), () => {
      fireCount += 1;
    });
  await flow.kickoff();
  expect(fireCount).toBe(1);
});

peer('test_flow.py::test_or_listener_re_arms_across_router_loop', async () => {
  let fireCount = 0;
  const again = { maxRuns: Number.POSITIVE_INFINITY };
  const flow = createFlow({ name: 'CyclicOrFlow', initialState: { iteration: 0 } })
    .start('kick', () => 'kick')
    .router('initial_router', 'kick', () => 'SignalA', { routes: ['SignalA'] })
    .listen(
      'handler',
      or('SignalA', 'SignalB'),
      () => {
        fireCount += 1;
      },
      again,
    )
    .router(
      'loop_router',
      'handler',
      ({ state }) => {
        state.iteration += 1;
        return state.iteration >= 3 ? 'stop' : 'SignalB';
      },
      { routes: ['stop', 'SignalB'], ...again },
    );
  await flow.kickoff();
  expect(fireCount).toBe(3);
});

peer('test_flow.py::test_or_listener_does_not_double_fire_across_chained_routers', async () => {
  let fireCount = 0;
  const flow = createFlow({ name: 'ChainedRouterOrFlow', initialState: {} })
    .start('kick', () => 'kick')
    .router('router_a', 'kick', () => 'SignalA', { routes: ['SignalA'] })
    .router('router_b', 'SignalA', () => 'SignalB', { routes: ['SignalB'] })
    .listen('handler', or('SignalA', 'SignalB'), () => {
      fireCount += 1;
    });
  await flow.kickoff();
  expect(fireCount).toBe(1);
});

peer('test_flow.py::test_flow_with_router', async () => {
  const executionOrder: string[] = [];
  const flow = createFlow({ name: 'RouterFlow', initialState: {} })
    .start('start_method', () => {
      executionOrder.push('start_method');
    })
    .router(
      'router',
      'start_method',
      () => {
        executionOrder.push('router');
        // Ensure the condition is set to True to follow the "step_if_true" path
        const condition = true as boolean;
        return condition ? 'step_if_true' : 'step_if_false';
      },
      { routes: ['step_if_true', 'step_if_false'] },
    )
    .listen('truthy', 'step_if_true', () => {
      executionOrder.push('step_if_true');
    })
    .listen('falsy', 'step_if_false', () => {
      executionOrder.push('step_if_false');
    });
  await flow.kickoff();
  expect(executionOrder).toEqual(['start_method', 'router', 'step_if_true']);
});

// CrewAI also asserts that its decorators leave no legacy attributes (`__is_start_method__`,
// `__trigger_methods__`) on the methods: Python metadata with no statecrew counterpart, not ported.
// The run's order is.
peer('test_flow.py::test_start_runtime_uses_flow_definition_without_legacy_start_metadata', async () => {
  const executionOrder: string[] = [];
  // `@start("branch_event") branch`, in a flow with an unconditional start: CrewAI runs it only on
  // "branch_event", as a statecrew listener of that label runs.
  const flow = createFlow({ name: 'DefinitionStartFlow', initialState: {} })
    .start('begin', () => {
      executionOrder.push('begin');
      return 'begin';
    })
    .router(
      'route',
      'begin',
      () => {
        executionOrder.push('route');
        return 'branch_event';
      },
      { routes: ['branch_event'] },
    )
    .listen('branch', 'branch_event', () => {
      executionOrder.push('branch');
      return 'branch';
    })
    .listen('done', 'branch', () => {
      executionOrder.push('done');
    });
  await flow.kickoff();
  expect(executionOrder).toEqual(['begin', 'route', 'branch', 'done']);
});

// CrewAI's assertions on legacy listener attributes (`__trigger_methods__`, `__condition_type__`,
// `__trigger_condition__`) are Python metadata, not ported; the run's order is.
difference(
  'test_flow.py::test_listen_runtime_uses_flow_definition_without_legacy_listener_metadata',
  async () => {
    const { flow, executionOrder } = definitionListenFlow();
    await flow.kickoff();
    expect(executionOrder[0]).toBe('begin');
    for (const step of ['by_callable', 'by_and', 'nested']) expect(executionOrder).toContain(step);
  },
  async () => {
    // "fallback" names no step and no route: the kickoff is refused before any step runs.
    const { flow, executionOrder } = definitionListenFlow();
    await expect(flow.kickoff()).rejects.toMatchObject({
      code: 'unknown_trigger',
      message: expect.stringContaining('"fallback"'),
    });
    expect(executionOrder).toEqual([]);
  },
);

function definitionListenFlow() {
  const executionOrder: string[] = [];
  const flow = createFlow({ name: 'DefinitionListenFlow', initialState: {} })
    .start('begin', () => {
      executionOrder.push('begin');
    })
    .listen('by_callable', 'begin', () => {
      executionOrder.push('by_callable');
    })
    .listen('by_and', and('begin', 'by_callable'), () => {
      executionOrder.push('by_and');
    })
    .listen('nested', or(and('begin', 'by_callable'), 'fallback'), () => {
      executionOrder.push('nested');
    });
  return { flow, executionOrder };
}

// CrewAI's assertions on legacy router attributes (`__is_router__`, `__router_emit__`, …) are Python
// metadata, not ported; the run's order is.
peer('test_flow.py::test_router_runtime_uses_flow_definition_without_legacy_router_metadata', async () => {
  const executionOrder: string[] = [];
  const flow = createFlow({ name: 'DefinitionRouterFlow', initialState: {} })
    .start('begin', () => {
      executionOrder.push('begin');
      return 'begin';
    })
    .router(
      'decide',
      'begin',
      () => {
        executionOrder.push('decide');
        return 'go_left';
      },
      { routes: ['go_left'] },
    )
    .listen('handle_left', 'go_left', () => {
      executionOrder.push('handle_left');
    });
  await flow.kickoff();
  expect(executionOrder).toEqual(['begin', 'decide', 'handle_left']);
});

peer('test_flow.py::test_start_router_runtime_routes_public_dsl_return_value', async () => {
  const executionOrder: string[] = [];
  // `@start() @router(emit=["continue"]) decide`: a router listening to an empty start step.
  const flow = createFlow({ name: 'StartRouterFlow', initialState: {} })
    .start('begin', () => undefined)
    .router(
      'decide',
      'begin',
      () => {
        executionOrder.push('decide');
        return 'continue';
      },
      { routes: ['continue'] },
    )
    .listen('handle_continue', 'continue', ({ payload }) => {
      executionOrder.push(`handle_continue:${String(payload)}`);
      return 'done';
    });
  expect((await flow.kickoff()).output).toBe('done');
  expect(executionOrder).toEqual(['decide', 'handle_continue:continue']);
});

peer('test_flow.py::test_start_router_runtime_chains_to_stacked_listener_router', async () => {
  const executionOrder: string[] = [];
  // `@start() @router(...) first_router`: a router listening to an empty start step;
  // `@listen("approved") @router(...) second_router`: a router listening to "approved".
  const flow = createFlow({ name: 'ChainedStartRouterFlow', initialState: {} })
    .start('begin', () => undefined)
    .router(
      'first_router',
      'begin',
      () => {
        executionOrder.push('first_router');
        return 'approved';
      },
      { routes: ['approved', 'not_approved'] },
    )
    .router(
      'second_router',
      'approved',
      () => {
        executionOrder.push('second_router');
        return 'second_approval';
      },
      { routes: ['second_approval', 'not_approved'] },
    )
    .listen('handle_second_approval', 'second_approval', ({ payload }) => {
      executionOrder.push(`handle_second_approval:${String(payload)}`);
      return 'done';
    });
  expect((await flow.kickoff()).output).toBe('done');
  expect(executionOrder).toEqual(['first_router', 'second_router', 'handle_second_approval:second_approval']);
});

difference(
  'test_flow.py::test_router_falsy_result_emits_runtime_event',
  async () => {
    const { flow, executionOrder } = falsyRouterResultFlow(0);
    await flow.kickoff();
    expect(executionOrder).toEqual(['begin', 'decide', 'handle_zero']);
  },
  async () => {
    // A router's result is one of its declared labels, compared as it is: the number 0 is not the
    // label "0" (unknown_route); the label "0", falsy-looking, routes like any other.
    const numeric = falsyRouterResultFlow(0);
    const out = await numeric.flow.kickoff();
    expect(out.failures.decide?.code).toBe('unknown_route');
    expect(numeric.executionOrder).toEqual(['begin', 'decide']);
    const label = falsyRouterResultFlow('0');
    await label.flow.kickoff();
    expect(label.executionOrder).toEqual(['begin', 'decide', 'handle_zero']);
  },
);

/** CrewAI's `FalsyRouterResultFlow`, its router returning `result`. */
function falsyRouterResultFlow(result: 0 | '0') {
  const executionOrder: string[] = [];
  const flow = createFlow({ name: 'FalsyRouterResultFlow', initialState: {} })
    .start('begin', () => {
      executionOrder.push('begin');
    })
    .router(
      'decide',
      'begin',
      () => {
        executionOrder.push('decide');
        // CrewAI's router returns the int 0; a statecrew router's type allows only its labels.
        return result as '0';
      },
      { routes: ['0'] },
    )
    .listen('handle_zero', '0', () => {
      executionOrder.push('handle_zero');
    });
  return { flow, executionOrder };
}

peer('test_flow.py::test_async_flow', async () => {
  const executionOrder: string[] = [];
  const flow = createFlow({ name: 'AsyncFlow', initialState: {} })
    .start('step_1', async () => {
      executionOrder.push('step_1');
      await nextTurn();
    })
    .listen('step_2', 'step_1', async () => {
      executionOrder.push('step_2');
      await nextTurn();
    });
  await flow.kickoff();
  expect(executionOrder).toEqual(['step_1', 'step_2']);
});

difference(
  'test_flow.py::test_flow_with_exceptions',
  async () => {
    const { flow, executionOrder } = exceptionFlow();
    await expect(flow.kickoff()).rejects.toThrow(Error);
    // Ensure step_2 did not execute
    expect(executionOrder).toEqual(['step_1']);
  },
  async () => {
    const { flow, executionOrder } = exceptionFlow();
    const out = await flow.kickoff();
    expect(out.status).toBe('failed');
    expect(out.errors.step_1).toBe('An error occurred in step_1');
    expect(out.trail).toEqual([]);
    expect(executionOrder).toEqual(['step_1']);
  },
);

function exceptionFlow() {
  const executionOrder: string[] = [];
  const flow = createFlow({ name: 'ExceptionFlow', initialState: {} })
    .start('step_1', () => {
      executionOrder.push('step_1');
      throw new Error('An error occurred in step_1');
    })
    .listen('step_2', 'step_1', () => {
      executionOrder.push('step_2');
    });
  return { flow, executionOrder };
}

peer('test_flow.py::test_flow_restart', async () => {
  const executionOrder: string[] = [];
  const flow = createFlow({ name: 'RestartableFlow', initialState: {} })
    .start('step_1', () => {
      executionOrder.push('step_1');
    })
    .listen('step_2', 'step_1', () => {
      executionOrder.push('step_2');
    });
  await flow.kickoff();
  await flow.kickoff();
  expect(executionOrder).toEqual(['step_1', 'step_2', 'step_1', 'step_2']);
});

peer('test_flow.py::test_flow_with_custom_state', async () => {
  // `self.counter`, set in `__init__`: the run's state.
  const flow = createFlow({ name: 'StateFlow', initialState: { counter: 0 } })
    .start('step_1', ({ state }) => {
      state.counter += 1;
    })
    .listen('step_2', 'step_1', ({ state }) => {
      state.counter *= 2;
      expect(state.counter).toBe(2);
    });
  const out = await flow.kickoff();
  expect(out.status).toBe('completed');
  expect(out.state.counter).toBe(2);
});

peer('test_flow.py::test_flow_uuid_unstructured', async () => {
  let initialId: string | undefined;
  const flow = createFlow({ name: 'UUIDUnstructuredFlow', initialState: {} as Record<string, unknown> })
    .start('first_method', ({ state }) => {
      expect(state).toHaveProperty('id');
      expect(typeof state.id).toBe('string');
      initialId = state.id;
      state.data = 'example';
    })
    .listen('second_method', 'first_method', ({ state }) => {
      // Ensure the ID persists after state updates
      expect(state).toHaveProperty('id');
      expect(state.id).toBe(initialId);
      state.more_data = 'test';
      expect(state.id).toBe(initialId);
    });
  const out = await flow.kickoff();
  expect(out.status).toBe('completed');
  expect(out.state.id).toBe(initialId);
  expect(out.state.id).toHaveLength(36);
});

peer('test_flow.py::test_flow_uuid_structured', async () => {
  let initialId: string | undefined;
  const MyStructuredState = z.object({
    counter: z.number().default(0),
    message: z.string().default('initial'),
  });
  const flow = createFlow({ name: 'UUIDStructuredFlow', state: MyStructuredState })
    .start('first_method', ({ state }) => {
      expect(state).toHaveProperty('id');
      expect(typeof state.id).toBe('string');
      initialId = state.id;
      state.counter += 1;
      state.message = 'updated';
    })
    .listen('second_method', 'first_method', ({ state }) => {
      // Ensure the ID persists after state updates
      expect(state).toHaveProperty('id');
      expect(state.id).toBe(initialId);
      state.counter += 1;
      state.message = 'final';
      expect(state.id).toBe(initialId);
    });
  const out = await flow.kickoff();
  expect(out.status).toBe('completed');
  expect(out.state.id).toBe(initialId);
  expect(out.state.id).toHaveLength(36);
  expect(out.state.counter).toBe(2);
  expect(out.state.message).toBe('final');
});

peer('test_flow.py::test_router_with_multiple_conditions', async () => {
  const executionOrder: string[] = [];
  const flow = createFlow({ name: 'ComplexRouterFlow', initialState: {} })
    .start('step_a', () => {
      executionOrder.push('step_a');
    })
    .start('step_b', () => {
      executionOrder.push('step_b');
    })
    .router(
      'router_or',
      or('step_a', 'step_b'),
      () => {
        executionOrder.push('router_or');
        return 'next_step_or';
      },
      { routes: ['next_step_or'] },
    )
    .listen('handle_next_step_or_event', 'next_step_or', () => {
      executionOrder.push('handle_next_step_or_event');
    })
    .listen('branch_2_step', 'handle_next_step_or_event', () => {
      executionOrder.push('branch_2_step');
    })
    .router(
      'router_and',
      and('handle_next_step_or_event', 'branch_2_step'),
      () => {
        executionOrder.push('router_and');
        return 'final_step';
      },
      { routes: ['final_step'] },
    )
    .listen('log_final_step', 'final_step', () => {
      executionOrder.push('log_final_step');
    });
  await flow.kickoff();

  for (const step of [
    'step_a',
    'step_b',
    'router_or',
    'handle_next_step_or_event',
    'branch_2_step',
    'router_and',
    'log_final_step',
  ]) {
    expect(executionOrder).toContain(step);
  }
  expect(executionOrder.indexOf('router_and')).toBeGreaterThan(
    executionOrder.indexOf('handle_next_step_or_event'),
  );
  expect(executionOrder.indexOf('router_and')).toBeGreaterThan(executionOrder.indexOf('branch_2_step'));
  // final_step should run after router_and
  expect(executionOrder.indexOf('log_final_step')).toBeGreaterThan(executionOrder.indexOf('router_and'));
});

/** CrewAI's `PoemFlow` of `test_unstructured_flow_event_emission`. */
function poemFlow() {
  return createFlow({ name: 'PoemFlow', initialState: {} as Record<string, string> })
    .start('prepare_flower', ({ state }) => {
      state.flower = 'roses';
      return 'foo';
    })
    .start('prepare_color', ({ state }) => {
      state.color = 'red';
      return 'bar';
    })
    .listen('write_first_sentence', 'prepare_color', ({ state }) => `${state.flower} are ${state.color}`)
    .listen('finish_poem', 'write_first_sentence', ({ state, payload }) => {
      const separator = state.separator ?? '\n';
      return [String(payload), 'violets are blue'].join(separator);
    })
    .listen('save_poem_to_database', 'finish_poem', () => 'roses are red\nviolets are blue');
}

difference(
  'test_flow.py::test_unstructured_flow_event_emission',
  async () => {
    const { events } = await runCollecting(poemFlow(), { inputs: { separator: ', ' } });
    const received = flowEvents(events, false);
    expect(received).toHaveLength(7); // 1 FlowStarted + 5 MethodExecutionStarted + 1 FlowFinished

    expect(received[0]?.type).toBe('run.started');
    expect(Object.values(fields(received[0]))).toContain('PoemFlow'); // flow_name
    expect(fields(received[0]).inputs).toEqual({ separator: ', ' });
    expect(typeof received[0]?.at).toBe('number');

    for (const event of received.slice(1, -1)) {
      expect(event.type).toBe('flow.step');
      expect(Object.values(fields(event))).toContain('PoemFlow');
      const state = fields(event).state as Record<string, unknown>;
      expect(typeof state).toBe('object');
      expect(typeof state.id).toBe('string');
      expect(state.separator).toBe(', ');
    }
    const stateOf = (index: number) => fields(received[index]).state as Record<string, unknown>;

    expect(stepName(received[1])).toBe('prepare_flower');
    expect(fields(received[1]).params).toEqual({});
    expect(stateOf(1)).not.toHaveProperty('flower');

    expect(stepName(received[2])).toBe('prepare_color');
    expect(fields(received[2]).params).toEqual({});
    expect(stateOf(2)).toHaveProperty('flower');

    expect(stepName(received[3])).toBe('write_first_sentence');
    expect(fields(received[3]).params).toEqual({});
    expect(stateOf(3).flower).toBe('roses');
    expect(stateOf(3).color).toBe('red');

    expect(stepName(received[4])).toBe('finish_poem');
    expect(fields(received[4]).params).toEqual({ _0: 'roses are red' });
    expect(stateOf(4).flower).toBe('roses');
    expect(stateOf(4).color).toBe('red');

    expect(stepName(received[5])).toBe('save_poem_to_database');
    expect(fields(received[5]).params).toEqual({});
    expect(stateOf(5).flower).toBe('roses');
    expect(stateOf(5).color).toBe('red');

    expect(received[6]?.type).toBe('run.completed');
    expect(Object.values(fields(received[6]))).toContain('PoemFlow');
    expect(fields(received[6]).result).toBe('roses are red\nviolets are blue');
    expect(typeof received[6]?.at).toBe('number');
  },
  async () => {
    // The events belong to the run (its id, not the flow's name); its state, inputs and result are the
    // run's output, and each step's payload is what the step before it returned.
    const { events, out } = await runCollecting(poemFlow(), { inputs: { separator: ', ' } });
    const received = flowEvents(events, false);
    expect(received.map((event) => event.type)).toEqual([
      'run.started',
      ...Array<string>(5).fill('flow.step'),
      'run.completed',
    ]);
    expect(received.every((event) => event.runId === out.id)).toBe(true);
    expect(received.slice(1, -1).map(stepName)).toEqual([
      'prepare_flower',
      'prepare_color',
      'write_first_sentence',
      'finish_poem',
      'save_poem_to_database',
    ]);
    expect(out.state).toMatchObject({ separator: ', ', flower: 'roses', color: 'red' });
    expect(out.outputs.write_first_sentence).toBe('roses are red');
    expect(out.outputs.finish_poem).toBe('roses are red, violets are blue');
    expect(out.output).toBe('roses are red\nviolets are blue');
  },
);

peer('test_flow.py::test_flow_trigger_payload_injection', async () => {
  const capturedPayload: unknown[] = [];
  const flow = createFlow({ name: 'TriggerFlow', initialState: {} })
    .start('start_method', ({ inputs }) => {
      capturedPayload.push(inputs.crewai_trigger_payload);
      return 'started';
    })
    .listen('second_method', 'start_method', () => {
      capturedPayload.push('no_parameter');
      return 'finished';
    });
  const testPayload = 'This is important trigger data';
  await flow.kickoff({ inputs: { crewai_trigger_payload: testPayload } });
  expect(capturedPayload).toEqual([testPayload, 'no_parameter']);
});

peer('test_flow.py::test_flow_trigger_payload_injection_multiple_starts', async () => {
  const capturedPayloads: [string, unknown][] = [];
  const flow = createFlow({ name: 'MultiStartFlow', initialState: {} })
    .start('start_method_1', ({ inputs }) => {
      capturedPayloads.push(['start_1', inputs.crewai_trigger_payload]);
      return 'start_1_done';
    })
    .start('start_method_2', ({ inputs }) => {
      capturedPayloads.push(['start_2', inputs.crewai_trigger_payload]);
      return 'start_2_done';
    });
  const testPayload = 'Multiple start trigger data';
  await flow.kickoff({ inputs: { crewai_trigger_payload: testPayload } });
  expect(capturedPayloads).toEqual([
    ['start_1', testPayload],
    ['start_2', testPayload],
  ]);
});

peer('test_flow.py::test_flow_without_trigger_payload', async () => {
  const capturedPayload: unknown[] = [];
  const flow = createFlow({ name: 'NormalFlow', initialState: {} }).start('start_method', ({ inputs }) => {
    capturedPayload.push(inputs.crewai_trigger_payload);
    return 'no_trigger';
  });
  await flow.kickoff({ inputs: { other_data: 'some value' } });
  // CrewAI's None: no such input.
  expect(capturedPayload).toHaveLength(1);
  expect(capturedPayload[0]).toBeUndefined();
});

peer('test_flow.py::test_flow_trigger_payload_with_structured_state', async () => {
  const TriggerState = z.object({ id: z.string().default('test'), message: z.string().default('') });
  const flow = createFlow({ name: 'StructuredFlow', state: TriggerState }).start(
    'start_method',
    ({ inputs }) => inputs.crewai_trigger_payload,
  );
  const testPayload = 'Structured state trigger data';
  const result = await flow.kickoff({ inputs: { crewai_trigger_payload: testPayload } });
  expect(result.output).toBe(testPayload);
});

peer('test_flow.py::test_flow_start_method_without_trigger_parameter', async () => {
  const executionOrder: string[] = [];
  const flow = createFlow({ name: 'FlowWithoutParameter', initialState: {} })
    .start('start_without_param', () => {
      executionOrder.push('start_executed');
      return 'started';
    })
    .listen('second_method', 'start_without_param', () => {
      executionOrder.push('second_executed');
      return 'finished';
    });
  const result = await flow.kickoff({ inputs: { crewai_trigger_payload: 'some data' } });
  expect(executionOrder).toEqual(['start_executed', 'second_executed']);
  expect(result.output).toBe('finished');
});

peer('test_flow.py::test_async_flow_with_trigger_payload', async () => {
  const capturedPayload: unknown[] = [];
  const flow = createFlow({ name: 'AsyncTriggerFlow', initialState: {} })
    .start('async_start_method', async ({ inputs }) => {
      capturedPayload.push(inputs.crewai_trigger_payload);
      await nextTurn();
      return 'async_started';
    })
    .listen('async_second_method', 'async_start_method', async ({ payload }) => {
      capturedPayload.push(payload);
      await nextTurn();
      return 'async_finished';
    });
  const testPayload = 'Async trigger data';
  const result = await flow.kickoff({ inputs: { crewai_trigger_payload: testPayload } });
  expect(capturedPayload).toEqual([testPayload, 'async_started']);
  expect(result.output).toBe('async_finished');
});

/** CrewAI's `OnboardingFlow` of `test_structured_flow_event_emission`. */
function onboardingFlow() {
  const OnboardingState = z.object({ name: z.string().default(''), sent: z.boolean().default(false) });
  return createFlow({ name: 'OnboardingFlow', state: OnboardingState })
    .start('user_signs_up', ({ state }) => {
      state.sent = false;
    })
    .listen('send_welcome_message', 'user_signs_up', ({ state }) => {
      state.sent = true;
      return `Welcome, ${state.name}!`;
    });
}

difference(
  'test_flow.py::test_structured_flow_event_emission',
  async () => {
    const { events } = await runCollecting(onboardingFlow(), { inputs: { name: 'Anakin' } });
    const received = flowEvents(events, true);
    expect(received).toHaveLength(6); // 1 FlowStarted + 2 MethodExecutionStarted + 2 MethodExecutionFinished + 1 FlowFinished

    expect(received[0]?.type).toBe('run.started');
    expect(Object.values(fields(received[0]))).toContain('OnboardingFlow'); // flow_name
    expect(fields(received[0]).inputs).toEqual({ name: 'Anakin' });
    expect(typeof received[0]?.at).toBe('number');

    expect(fields(received[1])).toMatchObject({
      type: 'flow.step',
      status: 'started',
      name: 'user_signs_up',
    });
    expect(fields(received[2])).toMatchObject({
      type: 'flow.step',
      status: 'completed',
      name: 'user_signs_up',
    });

    expect(fields(received[3])).toMatchObject({
      type: 'flow.step',
      status: 'started',
      name: 'send_welcome_message',
    });
    expect(fields(received[3]).params).toEqual({});
    expect((fields(received[3]).state as Record<string, unknown> | undefined)?.sent).toBe(false);

    expect(fields(received[4])).toMatchObject({
      type: 'flow.step',
      status: 'completed',
      name: 'send_welcome_message',
    });
    expect((fields(received[4]).state as Record<string, unknown> | undefined)?.sent).toBe(true);
    expect(fields(received[4]).output).toBe('Welcome, Anakin!');

    expect(received[5]?.type).toBe('run.completed');
    expect(Object.values(fields(received[5]))).toContain('OnboardingFlow');
    expect(fields(received[5]).result).toBe('Welcome, Anakin!');
    expect(typeof received[5]?.at).toBe('number');
  },
  async () => {
    const { events, out } = await runCollecting(onboardingFlow(), { inputs: { name: 'Anakin' } });
    const received = flowEvents(events, true);
    expect(received.map((event) => [event.type, stepName(event), fields(event).status])).toEqual([
      ['run.started', undefined, undefined],
      ['flow.step', 'user_signs_up', 'started'],
      ['flow.step', 'user_signs_up', 'completed'],
      ['flow.step', 'send_welcome_message', 'started'],
      ['flow.step', 'send_welcome_message', 'completed'],
      ['run.completed', undefined, 'completed'],
    ]);
    expect(fields(received[4]).output).toBe('Welcome, Anakin!');
    expect(out.state).toMatchObject({ name: 'Anakin', sent: true });
    expect(out.output).toBe('Welcome, Anakin!');
  },
);

/** CrewAI's `StatelessFlow` of `test_stateless_flow_event_emission` and `test_flow_plotting`. */
function statelessFlow(init: () => unknown) {
  return createFlow({ name: 'StatelessFlow', initialState: {} })
    .start('init', init)
    .listen('process', 'init', () => 'Deeds will not be less valiant because they are unpraised.');
}

difference(
  'test_flow.py::test_stateless_flow_event_emission',
  async () => {
    const { events } = await runCollecting(statelessFlow(() => undefined));
    const received = flowEvents(events, true);
    expect(received).toHaveLength(6); // 1 FlowStarted + 2 MethodExecutionStarted + 2 MethodExecutionFinished + 1 FlowFinished

    expect(received[0]?.type).toBe('run.started');
    expect(Object.values(fields(received[0]))).toContain('StatelessFlow'); // flow_name
    expect(fields(received[0]).inputs).toBeUndefined();
    expect(typeof received[0]?.at).toBe('number');

    expect(fields(received[1])).toMatchObject({ type: 'flow.step', status: 'started', name: 'init' });
    expect(fields(received[2])).toMatchObject({ type: 'flow.step', status: 'completed', name: 'init' });
    expect(fields(received[3])).toMatchObject({ type: 'flow.step', status: 'started', name: 'process' });
    expect(fields(received[4])).toMatchObject({ type: 'flow.step', status: 'completed', name: 'process' });

    expect(received[5]?.type).toBe('run.completed');
    expect(Object.values(fields(received[5]))).toContain('StatelessFlow');
    expect(fields(received[5]).result).toBe('Deeds will not be less valiant because they are unpraised.');
    expect(typeof received[5]?.at).toBe('number');
  },
  async () => {
    const { events, out } = await runCollecting(statelessFlow(() => undefined));
    const received = flowEvents(events, true);
    expect(received.map((event) => [event.type, stepName(event), fields(event).status])).toEqual([
      ['run.started', undefined, undefined],
      ['flow.step', 'init', 'started'],
      ['flow.step', 'init', 'completed'],
      ['flow.step', 'process', 'started'],
      ['flow.step', 'process', 'completed'],
      ['run.completed', undefined, 'completed'],
    ]);
    expect(received.every((event) => event.runId === out.id)).toBe(true);
    expect(out.output).toBe('Deeds will not be less valiant because they are unpraised.');
  },
);

difference(
  'test_flow.py::test_flow_plotting',
  async () => {
    const flow = statelessFlow(() => 'Initializing flow...');
    const { events: receivedEvents, out } = await runCollecting(flow);
    // `flow.plot("test_flow", show=False)`: statecrew draws a flow with `toFlowView` and `renderRunView`.
    renderRunView(toFlowView(flow, { output: out, events: receivedEvents }));
    const plots = receivedEvents.filter((event) => (event.type as string) === 'flow.plot');
    expect(plots).toHaveLength(1);
    expect(Object.values(fields(plots[0]))).toContain('StatelessFlow');
    expect(typeof plots[0]?.at).toBe('number');
  },
  async () => {
    // Drawing a flow is a function of its definition (and of a run, when given): it emits nothing.
    const flow = statelessFlow(() => 'Initializing flow...');
    const { events, out } = await runCollecting(flow);
    const view = toFlowView(flow, { output: out, events });
    expect(view.name).toBe('StatelessFlow');
    expect(view.nodes.map((node) => node.id)).toEqual(['init', 'process']);
    const html = renderRunView(view);
    expect(html).toContain('StatelessFlow');
    expect(html).toContain('process');
  },
);
