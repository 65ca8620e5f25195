import { fromJudge } from '../../actors/judge.js';
import { InvalidOptionError } from '../../errors.js';
import { type LoopOutput, loopMachine } from '../../machines/loop.js';
import type { Agent } from '../agent.js';
import type { PlannedTask } from '../plan.js';
import type { CrewProcess, CrewRunScope, LoopOptions } from '../process.js';
import { requiredText } from '../validate.js';
import { chainSummary, validateChain } from './chain.js';

/** The node id of a task's run in an iteration: `<task>#<iteration>`. */
const runId = (planned: PlannedTask, iteration: number) => `${planned.nodeId}#${iteration}`;

/**
 * The context of a task in an iteration: as in a sequential crew within the iteration, except that
 * the first task (with `context` undefined) reads the previous iteration's final raw.
 */
function loopContext(scope: CrewRunScope, planned: PlannedTask, iteration: number): string {
  const { plan, recorder } = scope;
  if (planned.contextIds !== undefined) {
    return planned.contextIds
      .map((id) => recorder.rawOf(runId(plan.byNodeId.get(id) as PlannedTask, iteration)) ?? '')
      .join('\n');
  }
  const previous = plan.tasks[planned.index - 1];
  if (previous !== undefined) return recorder.rawOf(runId(previous, iteration)) ?? '';
  const last = plan.tasks[plan.tasks.length - 1];
  return iteration > 1 && last !== undefined ? (recorder.rawOf(runId(last, iteration - 1)) ?? '') : '';
}

/** Runs the tasks as a sequence, again and again, until the judge says the condition holds (bounded). */
export const loopProcess: CrewProcess = {
  kind: 'loop',
  checkDefinition(crew) {
    const loop = crew.loop as Partial<LoopOptions> | undefined;
    if (loop === undefined)
      throw new InvalidOptionError('Crew', 'loop', '{ condition, judge, maxIterations? }', loop);
    requiredText('Crew loop', 'condition', loop.condition);
    if (typeof loop.judge !== 'function' && typeof loop.judge?.generate !== 'function') {
      throw new InvalidOptionError(
        'Crew loop',
        'judge',
        'a policy function or a model with generate()',
        loop.judge,
      );
    }
    const max = loop.maxIterations;
    if (max !== undefined && (!Number.isInteger(max) || max < 1)) {
      throw new InvalidOptionError('Crew loop', 'maxIterations', 'an integer ≥ 1', max);
    }
  },
  validate(plan) {
    validateChain(plan, 'loop');
  },
  supervisor(scope) {
    const { plan, runner, recorder, hub } = scope;
    const loop = scope.crew.loop as LoopOptions;
    const judge = fromJudge({
      judge: loop.judge,
      condition: loop.condition,
      now: hub.now,
      latest: (iteration) => {
        const last = plan.tasks[plan.tasks.length - 1];
        return last === undefined ? '' : (recorder.rawOf(runId(last, iteration)) ?? '');
      },
      onVerdict: (iteration, verdict, reply, usage) =>
        hub.emit({ type: 'judge.verdict', iteration, verdict, reply, usage }),
    });
    const logic = loopMachine.provide({
      actors: { judge },
      actions: {
        startNode: ({ self }, { iteration, index }) => {
          const planned = plan.tasks[index];
          if (planned === undefined) throw new Error(`No task at position ${index}`);
          const context = loopContext(scope, planned, iteration);
          scope.startTask(planned, planned.agent as Agent, context, self, runId(planned, iteration));
        },
        retryNode: (_, { nodeId }) => runner.retry(nodeId),
        blockFrom: ({ self }, { iteration, index, reason }) =>
          scope.block(
            plan.tasks.slice(index).map((t) => runId(t, iteration)),
            reason,
            self,
          ),
      },
    });
    return {
      logic,
      input: { total: plan.tasks.length, maxIterations: loop.maxIterations ?? 3 },
      finish(output) {
        const { iterations, conditionMet, error } = output as LoopOutput;
        if (error !== undefined) throw error;
        const inLast = (nodeId: string) => `${nodeId}#${iterations}`;
        return {
          ...chainSummary(plan.tasks, recorder, (t) => inLast(t.nodeId)),
          runOf: inLast,
          metadata: { iterations, conditionMet, verdicts: [...recorder.verdicts] },
        };
      },
    };
  },
};
