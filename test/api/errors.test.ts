import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AgentWork } from '../../src/actors/agent-actor.js';
import {
  AnalysisLimitError,
  BudgetExceededError,
  CycleError,
  createFlow,
  InternalError,
  isStatecrewError,
  RouteCoverageError,
  StatecrewError,
  type StatecrewErrorCode,
} from '../../src/index.js';
import { askAdvisor } from '../../src/machines/settled.js';
import { DagScheduler } from '../../src/runtime/crew/dag.js';
import { type CrewPlan, taskAt } from '../../src/runtime/crew/plan.js';
import type { StepDefinition } from '../../src/runtime/flow/definition.js';
import { expectRouteCoverage } from '../../src/testing.js';

describe('isStatecrewError', () => {
  it('is true for statecrew errors of any subclass, and false for anything else', () => {
    expect(isStatecrewError(new CycleError(['a', 'b']))).toBe(true);
    expect(isStatecrewError(new StatecrewError('aborted', 'stopped'))).toBe(true);
    expect(isStatecrewError(new InternalError('here', 'broken'))).toBe(true);
    expect(isStatecrewError(new Error('plain'))).toBe(false);
    // A look-alike with a code is not one: only an instance of the class counts.
    expect(isStatecrewError({ code: 'cycle', message: 'x', retryable: false, details: {} })).toBe(false);
    for (const value of [undefined, null, 'cycle', 42, {}]) expect(isStatecrewError(value)).toBe(false);
  });

  it('with a code, is true only when the code matches', () => {
    const error = new BudgetExceededError('maxTokens', 100, 120);
    expect(isStatecrewError(error, 'budget_exceeded')).toBe(true);
    expect(isStatecrewError(error, 'cycle')).toBe(false);
    expect(isStatecrewError(error, 'no_such_code')).toBe(false);
    expect(isStatecrewError(new Error('budget_exceeded'), 'budget_exceeded')).toBe(false);
  });

  it('narrows the value to the class, and to the code it was given', () => {
    const thrown: unknown = new CycleError(['a', 'b']);
    if (!isStatecrewError(thrown)) throw new Error('expected a statecrew error');
    expectTypeOf(thrown).toEqualTypeOf<StatecrewError>();
    expectTypeOf(thrown.code).toEqualTypeOf<StatecrewErrorCode>();
    const again: unknown = thrown;
    if (!isStatecrewError(again, 'cycle')) throw new Error('expected a cycle');
    expectTypeOf(again.code).toEqualTypeOf<'cycle'>();
    expect(again.details).toEqual({ cycle: ['a', 'b'] });
  });
});

describe('AnalysisLimitError', () => {
  it('has its code narrowed, and keeps its message and details', () => {
    const error = new AnalysisLimitError('big', 5);
    expectTypeOf(error.code).toEqualTypeOf<'analysis_limit'>();
    expect(error).toBeInstanceOf(StatecrewError);
    expect(error.name).toBe('AnalysisLimitError');
    expect(error.message).toBe(
      'Flow "big" has more than 5 abstract states; raise stateLimit to analyse it (analysis_limit)',
    );
    expect(error.details).toEqual({ flow: 'big', states: 5 });
    expect(error.retryable).toBe(false);
  });

  it('is what an analysis past its state limit throws', () => {
    let flow = createFlow({ name: 'wide', initialState: {} }).start('s', () => 's');
    for (let i = 1; i <= 4; i += 1)
      flow = flow.router(`r${i}`, i === 1 ? 's' : `r${i - 1}`, () => 'a', {
        routes: ['a', 'b'],
      });
    expect(() => flow.analyze({ stateLimit: 2 })).toThrow(AnalysisLimitError);
  });
});

describe('RouteCoverageError', () => {
  it('is what a coverage check below its minimum throws, naming the routes not taken', () => {
    const coverage = { covered: ['grade=approve'], uncovered: ['grade=revise', 'grade=hold'], ratio: 1 / 3 };
    let thrown: unknown;
    try {
      expectRouteCoverage(coverage, 0.5);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RouteCoverageError);
    expect(isStatecrewError(thrown, 'route_coverage')).toBe(true);
    expect((thrown as RouteCoverageError).message).toBe(
      'Route coverage 33% is below 50%; not taken: grade=revise, grade=hold (route_coverage)',
    );
    expect((thrown as RouteCoverageError).details).toEqual({
      ratio: 1 / 3,
      min: 0.5,
      uncovered: ['grade=revise', 'grade=hold'],
    });
    expect((thrown as RouteCoverageError).retryable).toBe(false);
  });
});

describe('InternalError', () => {
  it('says what was found, that it is a bug, and where; it is not retryable', () => {
    const error = new InternalError('RunTable.get', 'No run "run-9" is registered', { key: 'run-9' });
    expectTypeOf(error.code).toEqualTypeOf<'internal_error'>();
    expect(error.name).toBe('InternalError');
    expect(error.message).toBe(
      'No run "run-9" is registered: this is a bug in statecrew (in RunTable.get), please report it (internal_error)',
    );
    expect(error.details).toEqual({ key: 'run-9', where: 'RunTable.get' });
    expect(error.retryable).toBe(false);
  });

  it('is what the runtime throws when its own bookkeeping does not hold', () => {
    const internal = (where: string) =>
      expect.objectContaining({ code: 'internal_error', details: expect.objectContaining({ where }) });
    expect(() => taskAt({ tasks: [] } as unknown as CrewPlan, 3)).toThrow('No task at position 3');
    expect(() => taskAt({ tasks: [] } as unknown as CrewPlan, 3)).toThrow(internal('taskAt'));
    expect(() => new DagScheduler([], 1, new Map()).start()).toThrow(internal('DagScheduler.start'));
    const noAdvisor = () => askAdvisor({ get: () => undefined }, 'advisor-1', {} as AgentWork);
    expect(noAdvisor).toThrow('No advisor "advisor-1" in this run');
    expect(noAdvisor).toThrow(internal('askAdvisor'));
  });

  it('is what a human step body throws if anything ever called it instead of resuming', () => {
    const flow = createFlow({ name: 'ask', initialState: {} })
      .start('s', () => 's')
      .human('approval', 's', { routes: ['yes', 'no'] });
    const human = flow.definition.steps.find((s) => s.kind === 'human') as StepDefinition<unknown>;
    const call = () => human.run({} as Parameters<StepDefinition<unknown>['run']>[0]);
    expect(call).toThrow('Human step "approval" is answered through resume');
    expect(call).toThrow(InternalError);
  });
});
