import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { UnauthorizedError } from '../errors.js';
import { errorResponse } from './http-errors.js';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Requires `Authorization: Bearer <token>` on every request but those `isOpen` lets through: a 401
 * `unauthorized` with `WWW-Authenticate: Bearer` otherwise. The tokens are compared in constant time
 * (their digests, so neither the token nor its length shows in the timing).
 */
export function bearerAuth(
  token: string,
  isOpen: (method: string, path: string) => boolean = () => false,
): MiddlewareHandler {
  const expected = digest(token);
  return async (c, next) => {
    if (isOpen(c.req.method, c.req.path)) {
      await next();
      return undefined;
    }
    const header = c.req.header('authorization');
    const match = header === undefined ? null : /^Bearer\s+(.+)$/i.exec(header.trim());
    const given = match?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      c.header('WWW-Authenticate', given === undefined ? 'Bearer' : 'Bearer error="invalid_token"');
      return errorResponse(c, new UnauthorizedError(given === undefined ? 'missing' : 'wrong'));
    }
    await next();
    return undefined;
  };
}
