import { describe, expect, it } from 'vitest';
import { toFailure } from '../src/actors/failure.js';
import * as source from '../src/index.js';
import { built } from './helpers.js';

/** The built package: a second copy of every class, loaded beside the sources in this process. */
const other = (await import(built('index.js'))) as typeof source;

describe('errors of another copy of statecrew', () => {
  it('are known by isStatecrewError, with their code, while instanceof knows only its own copy', () => {
    const foreign = new other.RunNotFoundError('resume', 'r1');
    expect(other.RunNotFoundError).not.toBe(source.RunNotFoundError);
    expect(foreign instanceof source.StatecrewError).toBe(false);
    expect(foreign instanceof other.StatecrewError).toBe(true);
    expect(source.isStatecrewError(foreign)).toBe(true);
    expect(source.isStatecrewError(foreign, 'run_not_found')).toBe(true);
    expect(source.isStatecrewError(foreign, 'run_exists')).toBe(false);
    const own = new source.RunAbortedError('r2', 'stop', undefined);
    expect(own instanceof source.RunAbortedError && own instanceof source.StatecrewError).toBe(true);
    expect(other.isStatecrewError(own, 'aborted')).toBe(true);
  });

  it('keep what code that reads them by shape reads: code, message, retryable, details', () => {
    const foreign: unknown = new other.RunNotFoundError('resume', 'r1');
    if (!source.isStatecrewError(foreign)) throw new Error('not recognised');
    expect({ code: foreign.code, retryable: foreign.retryable, details: foreign.details }).toEqual({
      code: 'run_not_found',
      retryable: false,
      details: { executionId: 'r1' },
    });
    expect(foreign.message).toMatch(/\(run_not_found\)$/);
  });

  it('are told from look-alikes: an Error or a plain object with a code is not one', () => {
    expect(source.isStatecrewError(Object.assign(new Error('x (run_exists)'), { code: 'run_exists' }))).toBe(
      false,
    );
    expect(source.isStatecrewError({ code: 'run_exists', message: 'x', details: {} })).toBe(false);
    expect(source.isStatecrewError(null)).toBe(false);
    expect(source.isStatecrewError('run_exists')).toBe(false);
  });

  it('become a task failure with their code, as an error of this copy does', () => {
    const failed = toFailure(new other.StoreUnavailableError('sqlite store', 'runs.db', 'locked'));
    expect(failed).toMatchObject({
      code: 'store_unavailable',
      retryable: true,
      details: { store: 'sqlite store', where: 'runs.db' },
    });
  });
});
