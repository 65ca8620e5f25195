/**
 * The cheapest task-run machine found that keeps what statecrew's lifecycle contract lets a user see,
 * on bare XState: states `idle → ready → running → completed | failed` (entered at `running`, as
 * statecrew's started lifecycle is), `node.ready`, `node.started` and `node.completed` reported as they
 * happen, the attempt's `WORK` asked of the agent actor, and `NODE.COMPLETED` told to the supervisor,
 * which stops the run. What it leaves out of statecrew's machine: the context keys a completed run
 * never sets, a second action on entering `running` (one action reports and asks), the named guards
 * (inline ones), and the per-attempt `system.get` of the agent (its ref is looked up once). Only a
 * first attempt is modelled: `idle`, `ready` and `failed` are there, retries and waits are not.
 *   lean       that machine.
 *   unreported besides, no `node.*` report at all: not the contract, the bound of what reports cost.
 */
import { type AnyActorRef, assign, sendTo, setup } from 'xstate';

/** What a run reports, one call per transition (statecrew's `LifecycleEffects`). */
export interface LeanEffects {
  report(emitted: { type: string; nodeId: string; [key: string]: unknown }): void;
}

/** Input of a lean task run. */
export interface LeanInput {
  effects: LeanEffects;
  nodeId: string;
  /** The system id of the agent actor that runs its work. */
  executor: string;
  startAt: number;
}

interface LeanContext {
  effects: LeanEffects;
  nodeId: string;
  agent: AnyActorRef;
  attempts: number;
  startedAt: number;
  durationMs?: number;
  output?: unknown;
}

type LeanEvent =
  | { type: 'START'; at: number }
  | { type: 'WORK.DONE'; attempt: number; outcome: { ok: boolean; output?: unknown; finishedAt: number } };

/** What an actor system relays between actors (XState's `sendTo` path: an inspector sees the sender). */
interface RelayingSystem {
  _relay(source: AnyActorRef, target: AnyActorRef, event: { type: string }): void;
}

/** A lean task-run machine; `reports`: whether it reports its transitions (the contract says it does). */
export function leanLifecycle(reports: boolean) {
  const report = (context: LeanContext, emitted: Parameters<LeanEffects['report']>[0]) => {
    if (reports) context.effects.report(emitted);
  };
  return setup({
    types: { context: {} as LeanContext, input: {} as LeanInput, events: {} as LeanEvent },
    actions: {
      /** Reports `node.started` and asks the agent for the attempt's work, in one action. */
      startAttempt: ({ context, self, system }) => {
        report(context, { type: 'node.started', nodeId: context.nodeId, attempt: context.attempts });
        const work = { type: 'WORK', nodeId: context.nodeId, attempt: context.attempts, replyTo: self };
        (system as unknown as RelayingSystem)._relay(self, context.agent, work);
      },
      reportCompleted: ({ context }) =>
        report(context, {
          type: 'node.completed',
          nodeId: context.nodeId,
          attempts: context.attempts,
          startedAt: context.startedAt,
          durationMs: context.durationMs ?? 0,
          output: context.output,
        }),
      settle: sendTo(
        ({ self }) => self._parent ?? self,
        ({ context, self }) => ({ type: 'NODE.COMPLETED', nodeId: context.nodeId, run: self }),
      ),
    },
  }).createMachine({
    id: 'lean',
    context: ({ input, self }) => ({
      effects: input.effects,
      nodeId: input.nodeId,
      agent: self.system.get(input.executor) as AnyActorRef,
      attempts: 1,
      startedAt: input.startAt,
    }),
    initial: 'running',
    entry: ({ context }) => report(context, { type: 'node.ready', nodeId: context.nodeId }),
    states: {
      idle: { on: { START: 'running' } },
      ready: { on: { START: 'running' } },
      running: {
        entry: 'startAttempt',
        on: {
          'WORK.DONE': [
            {
              guard: ({ context, event }) => event.attempt === context.attempts && event.outcome.ok,
              target: 'completed',
              actions: assign(({ context, event: { outcome } }) => ({
                output: outcome.output,
                durationMs: outcome.finishedAt - context.startedAt,
              })),
            },
            { guard: ({ context, event }) => event.attempt === context.attempts, target: 'failed' },
          ],
        },
      },
      completed: { entry: ['reportCompleted', 'settle'] },
      failed: {},
    },
  });
}
