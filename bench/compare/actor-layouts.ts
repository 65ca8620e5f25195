/**
 * The floor of bench/compare/actor-floor.ts with, one at a time, the parts of statecrew's actor
 * layout that its contract asks for, and no statecrew code: what each part costs on bare XState.
 *   agent     the work goes through one long-lived agent actor: a task run sends it `WORK`, and it
 *             runs the model and sends the outcome back (`DONE`); the inspector sees both events.
 *   reported  besides, a completed run reports `NODE.COMPLETED` to its supervisor, which stops it,
 *             instead of ending in a final state: a final child's done event is typed
 *             `xstate.done.actor.<id>`, and with one id per task (as an inspector must tell the runs
 *             apart) XState memoises transitions per event type on the supervisor machine forever.
 *   lifecycle besides, the task runs are statecrew's own lifecycle machine (its states, guards,
 *             assigns and report actions, provided as no-ops), without the rest of its runtime.
 *   lean      instead, the leanest machine found that keeps the lifecycle's contract on bare XState
 *             (bench/compare/lean-lifecycle.ts); `unreported` is that machine without its reports.
 * statecrew's machine runs on the XState copy statecrew's build imports, this file's supervisor and
 * agent on the bench package's own copy: the `lifecycle` layout mixes the two copies, the other
 * layouts run on one. Read its rung against the others with that in mind.
 */
import {
  type AnyActorRef,
  assign,
  createActor,
  enqueueActions,
  fromCallback,
  sendTo,
  setup,
  stopChild,
} from 'xstate';
import { leanLifecycle } from './lean-lifecycle.js';

type Model = (input: string) => Promise<string>;

/** Which parts of the layout a run of task actors has. */
export type Layout = 'agent' | 'reported' | 'lifecycle' | 'lean' | 'unreported';

interface Work {
  type: 'WORK';
  input?: string;
  attempt?: number;
  replyTo: AnyActorRef;
}

/**
 * One agent actor per run: runs each `WORK` on the model, outside any transition, and replies (as a
 * lifecycle's `WORK.DONE` when `lifecycle`).
 */
const agentLogic = fromCallback<Work, { model: Model; lifecycle: boolean }>(({ input, receive }) => {
  receive((work) => {
    void input
      .model(work.input ?? '')
      .then((output) =>
        work.replyTo.send(
          input.lifecycle
            ? { type: 'WORK.DONE', attempt: work.attempt, outcome: { ok: true, output, finishedAt: 0 } }
            : { type: 'DONE', output },
        ),
      );
  });
});

/** statecrew's started lifecycle machine (`startedLifecycleMachine` in `src/machines/lifecycle.ts`). */
export type LifecycleLogic = typeof import('../../src/machines/lifecycle.js').startedLifecycleMachine;

/** The lifecycle machine with its actions provided the way statecrew's runner provides them, minus the runner. */
function providedLifecycle(lifecycle: LifecycleLogic) {
  return lifecycle.provide({
    actions: {
      report: () => {},
      settle: sendTo(
        ({ self }) => self._parent as AnyActorRef,
        ({ self }) => ({ type: 'NODE.COMPLETED', output: '', run: self }),
      ),
      requestWork: sendTo(
        ({ system, context }) => system.get(context.executor) as AnyActorRef,
        ({ context, self }): Work => ({ type: 'WORK', attempt: context.attempts, replyTo: self }),
      ),
    },
  });
}

type TaskContext = { input: string; output: string };
type TaskEvent = { type: 'DONE'; output: string };

const taskSetup = setup({
  types: {
    context: {} as TaskContext,
    input: {} as { input: string },
    events: {} as TaskEvent,
  },
  actions: {
    ask: sendTo(
      ({ system }) => system.get('agent') as AnyActorRef,
      ({ context, self }): Work => ({ type: 'WORK', input: context.input, replyTo: self }),
    ),
  },
});

/** Asking the agent actor, then `completed` with its answer: how both task machines below run. */
const running = taskSetup.createStateConfig({
  entry: 'ask',
  on: { DONE: { target: 'completed', actions: assign({ output: ({ event }) => event.output }) } },
});

/** A task run asking the agent actor; it ends in a final state (one done event type: id `task`). */
const askingTask = taskSetup.createMachine({
  context: ({ input }) => ({ input: input.input, output: '' }),
  initial: 'running',
  states: {
    running,
    completed: { type: 'final' },
  },
  output: ({ context }) => context.output,
});

/** A task run asking the agent actor that reports its completion and waits to be stopped. */
const reportingTask = taskSetup.createMachine({
  context: ({ input }) => ({ input: input.input, output: '' }),
  initial: 'running',
  states: {
    running,
    completed: {
      entry: sendTo(
        ({ self }) => self._parent as AnyActorRef,
        ({ context, self }) => ({ type: 'NODE.COMPLETED', output: context.output, run: self }),
      ),
    },
  },
});

/** The lean task runs, reporting or not. */
const leanRuns = { lean: leanLifecycle(true), unreported: leanLifecycle(false) };

type SupervisorEvent =
  | { type: 'xstate.done.actor.task'; output: unknown }
  | { type: 'NODE.COMPLETED'; output: string; run: AnyActorRef };

function supervisorLogic(
  layout: Layout,
  total: number,
  concurrency: number,
  model: Model,
  lifecycle: ReturnType<typeof providedLifecycle> | undefined,
) {
  const reported = layout !== 'agent';
  const lean = layout === 'lean' || layout === 'unreported' ? leanRuns[layout] : undefined;
  return setup({
    types: {
      context: {} as { started: number; done: number; last: string },
      events: {} as SupervisorEvent,
    },
    actions: {
      fill: enqueueActions(({ context, self, enqueue }) => {
        let started = context.started;
        while (started < total && started - context.done < concurrency) {
          started += 1;
          const input = context.last;
          const id = reported ? `t${started}` : 'task';
          queueMicrotask(() => {
            if (lean !== undefined) {
              const leanInput = { effects: { report: () => {} }, nodeId: id, executor: 'agent', startAt: 0 };
              createActor(lean, { id, parent: self, input: leanInput }).start();
              return;
            }
            if (lifecycle === undefined) {
              createActor(reported ? reportingTask : askingTask, {
                id,
                parent: self,
                input: { input },
              }).start();
              return;
            }
            const effects = { report: () => {} };
            const taskInput = { effects, nodeId: id, maxAttempts: 1, executor: 'agent', startAt: 0 };
            createActor(lifecycle, { id, parent: self, input: taskInput }).start();
          });
        }
        enqueue.assign({ started });
      }),
      settle: assign({
        done: ({ context }) => context.done + 1,
        last: ({ event }) => String(event.output),
      }),
    },
  }).createMachine({
    context: { started: 0, done: 0, last: 'start' },
    initial: 'running',
    entry: ({ self }) => {
      const agentInput = { model, lifecycle: lifecycle !== undefined || lean !== undefined };
      createActor(agentLogic, { systemId: 'agent', parent: self, input: agentInput }).start();
    },
    states: {
      running: {
        entry: 'fill',
        always: { guard: ({ context }) => context.done === total, target: 'done' },
        on: {
          'xstate.done.actor.task': { actions: ['settle', 'fill'] },
          'NODE.COMPLETED': {
            actions: [stopChild(({ event }) => event.run), 'settle', 'fill'],
          },
        },
      },
      done: { type: 'final' },
    },
  });
}

/**
 * Runs `total` task actors in `layout` under one supervisor, at most `concurrency` at once (`lifecycle`:
 * the machine the `lifecycle` layout runs).
 */
export function runLayout(
  layout: Layout,
  total: number,
  concurrency: number,
  model: Model,
  lifecycle?: LifecycleLogic,
): Promise<void> {
  if (layout === 'lifecycle' && lifecycle === undefined)
    throw new Error('The lifecycle layout needs the machine');
  const provided =
    layout === 'lifecycle' && lifecycle !== undefined ? providedLifecycle(lifecycle) : undefined;
  const supervisor = createActor(supervisorLogic(layout, total, concurrency, model, provided));
  const done = new Promise<void>((resolve) => supervisor.subscribe({ complete: resolve }));
  supervisor.start();
  return done;
}

/** A root task, `n` tasks at most `concurrency` at once, then a join, in `layout`. */
export async function layoutFanOut(
  layout: Layout,
  n: number,
  concurrency: number,
  model: Model,
  lifecycle?: LifecycleLogic,
): Promise<void> {
  await runLayout(layout, 1, 1, model, lifecycle);
  await runLayout(layout, n, concurrency, model, lifecycle);
  await runLayout(layout, 1, 1, model, lifecycle);
}
