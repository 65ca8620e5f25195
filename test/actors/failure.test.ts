import { afterEach, describe, expect, it, vi } from 'vitest';
import { toFailure } from '../../src/actors/failure.js';
import {
  GuardrailError,
  MissingManagerError,
  TaskTimeoutError,
  UnknownWorkerError,
} from '../../src/index.js';

/** An error shaped like the AI SDK's APICallError. */
function apiCallError(statusCode: number, headers: Record<string, string> = {}, isRetryable?: boolean) {
  return Object.assign(new Error(`HTTP ${statusCode}`), {
    statusCode,
    responseHeaders: headers,
    ...(isRetryable === undefined ? {} : { isRetryable }),
  });
}

describe('toFailure', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  describe('what a thrown value says', () => {
    it('keeps a plain object as JSON, a string as itself, undefined as "undefined"', () => {
      expect(toFailure({ code: 429, msg: 'rate' })).toEqual({
        message: '{"code":429,"msg":"rate"}',
        retryable: true,
      });
      expect(toFailure('boom')).toEqual({ message: 'boom', retryable: true });
      expect(toFailure(undefined)).toEqual({ message: 'undefined', retryable: true });
      expect(toFailure(new Error('plain'))).toEqual({ message: 'plain', retryable: true });
    });

    it('keeps a StatecrewError code, its retry flag and its details (omitted when empty)', () => {
      expect(toFailure(new UnknownWorkerError('Chef', ['Writer'], 't1'))).toEqual({
        message: expect.stringMatching(/\(unknown_worker\)$/),
        code: 'unknown_worker',
        retryable: false,
        details: { role: 'Chef', knownRoles: ['Writer'], task: 't1' },
      });
      expect(toFailure(new GuardrailError('t', 'too short'))).toMatchObject({
        code: 'guardrail_rejected',
        retryable: true,
      });
      expect(toFailure(new TaskTimeoutError('t', 50))).toMatchObject({
        code: 'task_timeout',
        retryable: true,
      });
      expect(toFailure(new MissingManagerError())).not.toHaveProperty('details');
    });

    it("keeps another error's string code, and ignores a numeric one", () => {
      const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      expect(toFailure(reset)).toEqual({ message: 'socket hang up', code: 'ECONNRESET', retryable: true });
      expect(toFailure({ code: 429, msg: 'rate' })).not.toHaveProperty('code');
    });
  });

  describe('retry classification', () => {
    it('does not retry a 401: no retry mends a bad key', () => {
      expect(toFailure({ status: 401 })).toEqual({
        message: '{"status":401}',
        retryable: false,
        details: { status: 401 },
      });
    });

    it('does not retry any other 4xx, read from status, statusCode or response.status', () => {
      expect(toFailure(Object.assign(new Error('bad'), { status: 400 })).retryable).toBe(false);
      expect(toFailure(apiCallError(404))).toMatchObject({ retryable: false, details: { status: 404 } });
      expect(toFailure(Object.assign(new Error('axios'), { response: { status: 403 } }))).toMatchObject({
        retryable: false,
        details: { status: 403 },
      });
    });

    it('retries 408, 409, 429 and every 5xx', () => {
      for (const status of [408, 409, 429, 500, 503, 599]) {
        expect(toFailure({ status }), `status ${status}`).toMatchObject({
          retryable: true,
          details: { status },
        });
      }
    });

    it('retries a 503', () => {
      expect(toFailure(apiCallError(503))).toEqual({
        message: 'HTTP 503',
        retryable: true,
        details: { status: 503 },
      });
    });

    it('does not retry an error that says isRetryable: false, and lets isRetryable: true win over a status', () => {
      expect(toFailure(Object.assign(new Error('no'), { isRetryable: false })).retryable).toBe(false);
      expect(toFailure(apiCallError(500, {}, false)).retryable).toBe(false);
      expect(toFailure(apiCallError(400, {}, true)).retryable).toBe(true);
    });

    it('retries plain and network errors, and ignores a status that is not an HTTP status', () => {
      expect(toFailure(new TypeError('fetch failed')).retryable).toBe(true);
      expect(toFailure(Object.assign(new Error('exit'), { status: 1 }))).toEqual({
        message: 'exit',
        retryable: true,
      });
      expect(toFailure({ status: '401' })).toEqual({ message: '{"status":"401"}', retryable: true });
    });
  });

  describe('retry-after', () => {
    it('reads a 429 with retry-after: "2" as retryable after 2000 ms', () => {
      expect(toFailure(apiCallError(429, { 'retry-after': '2' }))).toEqual({
        message: 'HTTP 429',
        retryable: true,
        details: { status: 429 },
        retryAfterMs: 2000,
      });
    });

    it('prefers retry-after-ms over retry-after', () => {
      const error = apiCallError(429, { 'retry-after-ms': '1500', 'retry-after': '9' });
      expect(toFailure(error).retryAfterMs).toBe(1500);
    });

    it('reads retry-after as an HTTP date relative to now', () => {
      vi.useFakeTimers();
      vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
      const error = apiCallError(503, { 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' });
      expect(toFailure(error).retryAfterMs).toBe(5000);
    });

    it('reads headers from a Headers object and from a plain headers object in any case', () => {
      const fetchStyle = Object.assign(new Error('rate'), {
        status: 429,
        headers: new Headers({ 'Retry-After': '3' }),
      });
      expect(toFailure(fetchStyle).retryAfterMs).toBe(3000);
      const plain = Object.assign(new Error('rate'), { status: 429, headers: { 'Retry-After': '4' } });
      expect(toFailure(plain).retryAfterMs).toBe(4000);
    });

    it('reads a retryAfterMs property, and a retryAfter property in seconds (number or numeric string)', () => {
      expect(toFailure(Object.assign(new Error('x'), { retryAfterMs: 250 })).retryAfterMs).toBe(250);
      expect(toFailure(Object.assign(new Error('x'), { retryAfter: 7 })).retryAfterMs).toBe(7000);
      expect(toFailure(Object.assign(new Error('x'), { retryAfter: '0.5' })).retryAfterMs).toBe(500);
    });

    it('ignores negative, past and unparseable values', () => {
      vi.useFakeTimers();
      vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
      const ignored = [
        apiCallError(429, { 'retry-after': '-5' }),
        apiCallError(429, { 'retry-after': 'soon' }),
        apiCallError(429, { 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }),
        apiCallError(429, { 'retry-after-ms': 'later' }),
        Object.assign(new Error('x'), { retryAfterMs: -1 }),
        Object.assign(new Error('x'), { retryAfter: 'tomorrow' }),
      ];
      for (const error of ignored) expect(toFailure(error), error.message).not.toHaveProperty('retryAfterMs');
    });

    it('leaves retryAfterMs out when the provider did not say', () => {
      expect(toFailure(apiCallError(429))).not.toHaveProperty('retryAfterMs');
    });
  });
});
