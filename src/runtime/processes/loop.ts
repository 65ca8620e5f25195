import { advisorExecutor } from '../../actors/advisor.js';
import { type JudgeScope, judgeIteration } from '../../actors/judge.js';
import { InvalidOptionError } from '../../errors.js';
import {
  type LoopContext,
  type LoopEffects,
  type LoopInput,
  type LoopOutput,
  loopMachine,
  type Verdict,
} from '../../machines/loop.js';
import { emptyUsage } from '../../models/usage.js';
import type { Agent } from '../crew/agent.js';
import { chainAnalysis, chainTask, endName } from '../crew/crew-picture.js';
import type { PlannedTask } from '../crew/plan.js';
import { taskAt } from '../crew/plan.js';
import {
  answerMove,
  inertEffects,
  picturePaths,
  settleMoves,
  supervisorPicture,
} from '../crew/supervisor-picture.js';
import { requiredText } from '../engine/validate.js';
import type { CrewProcess, CrewRunScope, LoopOptions } from '../process.js';
import { chainShapeEdges, type ProcessEdge, type ProcessNode, shapeEdge } from '../process-shape.js';
import { blockRest, chainContexts, chainSummary, validateChain } from './chain.js';

/** The node id of a task's run in an iteration: `<task>#<iteration>`. */
const runId = (planned: PlannedTask, iteration: number) => `${planned.nodeId}#${iteration}`;

/**
 * The contexts of the tasks in a run's iterations: as in a sequential crew within the iteration (the
 * crew's `context` default included), except that the first task (with `context` undefined) reads
 * the previous iteration's final raw.
 */
function loopContexts(scope: CrewRunScope): (planned: PlannedTask, iteration: number) => string {
  const { plan, recorder } = scope;
  let current = { iteration: 0, contextOf: (_: PlannedTask) => '' };
  return (planned, iteration) => {
    if (planned.contextIds === undefined && planned.index === 0) {
      const last = plan.tasks[plan.tasks.length - 1];
      return iteration > 1 && last !== undefined
        ? (recorder.contextOf(runId(last, iteration - 1)) ?? '')
        : '';
    }
    if (current.iteration !== iteration) {
      const runOf = (task: PlannedTask) => runId(task, iteration);
      current = { iteration, contextOf: chainContexts(plan, recorder, scope.crew.context, runOf) };
    }
    return current.contextOf(planned);
  };
}

/** The judge, whose runs are its verdicts (`judge:<iteration>`). */
const JUDGE: ProcessNode = { id: '@judge', label: 'judge', kind: 'judge', runs: /^judge:(\d+)$/ };
/** Where the loop ends once the judge says YES. */
const DONE: ProcessNode = { id: '@done', label: 'done', kind: 'end' };

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
    const judge: JudgeScope = {
      judge: loop.judge,
      condition: loop.condition,
      now: hub.now,
      latest: (iteration) => {
        const last = plan.tasks[plan.tasks.length - 1];
        return last === undefined ? '' : (recorder.contextOf(runId(last, iteration)) ?? '');
      },
      onVerdict: (iteration, verdict, reply, usage) =>
        hub.emit({ type: 'judge.verdict', iteration, verdict, reply, usage }),
      gate: scope.gate,
    };
    const contextOf = loopContexts(scope);
    const effects: LoopEffects = {
      startNode(iteration, index, self) {
        const planned = taskAt(plan, index);
        const context = contextOf(planned, iteration);
        scope.startTask(planned, planned.agent as Agent, context, self, runId(planned, iteration));
      },
      retryNode: (nodeId) => runner.retry(nodeId),
      blockFrom: (iteration, index, reason, self) =>
        blockRest(scope, index, reason, self, (t) => runId(t, iteration)),
      // The refused verdict is the node that failed: `judge:<iteration>`.
      stopForBudget: (iteration, failure) => scope.recordFailure(`judge:${iteration}`, failure),
    };
    const judgeId = `${runner.key}:judge`;
    return {
      logic: loopMachine,
      input: { effects, total: plan.tasks.length, maxIterations: loop.maxIterations ?? 3, judge: judgeId },
      advisors: [
        {
          name: 'judge',
          systemId: judgeId,
          executor: advisorExecutor((work, signal) => {
            // An iteration after which an earlier run went on was judged NO then: not asked again.
            const first = plan.tasks[0];
            if (first !== undefined && scope.reached.has(runId(first, work.attempt + 1))) {
              const reply = `NO (iteration ${work.attempt + 1} ran in an earlier run)`;
              hub.emit({
                type: 'judge.verdict',
                iteration: work.attempt,
                verdict: 'no',
                reply,
                usage: emptyUsage(),
              });
              return Promise.resolve<Verdict>('no');
            }
            return judgeIteration(judge, work.attempt, signal);
          }, hub.now),
        },
      ],
      summarize(output) {
        const { iterations, conditionMet } = output as LoopOutput;
        const inLast = (nodeId: string) => `${nodeId}#${iterations}`;
        return {
          ...chainSummary(plan.tasks, recorder, (t) => inLast(t.nodeId)),
          runOf: inLast,
          metadata: { iterations, conditionMet, verdicts: [...recorder.verdicts] },
        };
      },
    };
  },
  toMachine(shape) {
    const ids = shape.plan.tasks.map((t) => t.nodeId);
    const input: LoopInput = {
      effects: inertEffects<LoopEffects>('loop'),
      total: ids.length,
      maxIterations: shape.maxIterations,
      judge: 'judge',
    };
    const judged = (snapshot: { context: unknown }) => `judge ${(snapshot.context as LoopContext).iteration}`;
    return supervisorPicture({
      id: 'loop',
      logic: loopMachine,
      input,
      moves(snapshot) {
        const { iteration } = snapshot.context as LoopContext;
        if (snapshot.matches('running')) return settleMoves(chainTask(ids, snapshot));
        if (!snapshot.matches('judging')) return [];
        return [
          answerMove('YES', iteration, 'yes'),
          answerMove('NO', iteration, 'no'),
          answerMove('FAIL', iteration, undefined),
        ];
      },
      name(snapshot) {
        if (snapshot.status === 'done') return endName(snapshot);
        if (snapshot.matches('judging')) return judged(snapshot);
        return `${(snapshot.context as LoopContext).iteration}/${chainTask(ids, snapshot)}`;
      },
      describe(snapshot) {
        if (snapshot.matches('running')) return `Runs task ${chainTask(ids, snapshot)}`;
        return snapshot.matches('judging')
          ? `The judge reads iteration ${(snapshot.context as LoopContext).iteration}`
          : undefined;
      },
    });
  },
  shape(plan) {
    const ids = plan.tasks.map((t) => t.nodeId);
    const first = ids[0];
    const last = ids.at(-1);
    const edges: ProcessEdge[] = chainShapeEdges(ids);
    if (last !== undefined) edges.push(shapeEdge(last, JUDGE.id));
    if (first !== undefined) edges.push(shapeEdge(JUDGE.id, first, 'NO', true));
    edges.push(shapeEdge(JUDGE.id, DONE.id, 'YES'));
    return {
      nodes: [JUDGE, DONE],
      edges,
      ends: [DONE.id],
      blocksOnFailure: 'following',
      synthesisLeaf: undefined,
      repeats: true,
    };
  },
  analyze(shape) {
    const paths = picturePaths(this.toMachine(shape));
    return chainAnalysis(shape, this.shape(shape.plan).blocksOnFailure, paths);
  },
};
