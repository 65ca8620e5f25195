import { describe, expect, expectTypeOf, it } from 'vitest';
import { describeThrown } from '../src/errors.js';
import {
  type Crew,
  CycleError,
  type Failure,
  type PlainMachine,
  RunAbortedError,
  StatecrewError,
  type StatecrewErrorCode,
} from '../src/index.js';

describe('error codes', () => {
  it('are a literal union that each subclass narrows', () => {
    const cycle = new CycleError(['a', 'b']);
    expectTypeOf(cycle.code).toEqualTypeOf<'cycle'>();
    expectTypeOf(new StatecrewError('aborted', 'x').code).toEqualTypeOf<'aborted'>();
    expectTypeOf<StatecrewError['code']>().toEqualTypeOf<StatecrewErrorCode>();
    // @ts-expect-error: a code outside the union is refused
    new StatecrewError('no_such_code', 'x');
    expect(cycle.code).toBe('cycle');
  });

  it('survive JSON through a failure record, where instanceof would not', () => {
    const failure: Failure = { message: new CycleError(['a']).message, code: 'cycle', retryable: false };
    expect(JSON.parse(JSON.stringify(failure))).toEqual(failure);
  });

  it('give an aborted run its reason as cause and its partial result', () => {
    const error = new RunAbortedError('run-1', { why: 'shutdown' }, { done: 1 });
    expect(error.message).toBe('Run "run-1" was aborted: {"why":"shutdown"} (aborted)');
    expect(error.cause).toEqual({ why: 'shutdown' });
    expect(error.partial).toEqual({ done: 1 });
    expect(error.retryable).toBe(false);
  });
});

describe('describeThrown', () => {
  it('keeps what a thrown value says', () => {
    expect(describeThrown(new Error('boom'))).toBe('boom');
    expect(describeThrown('boom')).toBe('boom');
    expect(describeThrown({ code: 429, msg: 'rate' })).toBe('{"code":429,"msg":"rate"}');
    expect(describeThrown(undefined)).toBe('undefined');
    expect(describeThrown(7n)).toBe('7');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describeThrown(cyclic)).toBe('[object Object]');
  });
});

describe('pictures', () => {
  it('are typed as plain machines, with no any in the signature', () => {
    expectTypeOf<ReturnType<Crew['toMachine']>>().toEqualTypeOf<PlainMachine>();
  });
});
