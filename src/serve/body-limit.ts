import type { MiddlewareHandler } from 'hono';
import { PayloadTooLargeError } from '../errors.js';
import { errorResponse } from './http-errors.js';

/**
 * The most of a too-large body the server reads and throws away before it answers 413: enough for
 * any body a client sends by mistake, so it sees the 413 on a connection it can use again. Past it
 * the server answers and closes the connection.
 */
export const DRAIN_LIMIT = 64 * 1024 * 1024;

/** What reading a body found: its bytes when within the limit, and whether it was read to its end. */
interface ReadBody {
  bytes: Uint8Array | undefined;
  ended: boolean;
}

/**
 * Reads `body` whole, keeping its bytes only while they are within `limit` (and `keep`); a body
 * over the limit is read on and thrown away up to {@link DRAIN_LIMIT} bytes, then given up.
 */
async function readBody(body: ReadableStream<Uint8Array>, limit: number, keep: boolean): Promise<ReadBody> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size <= limit && keep) chunks.push(value);
    if (size > DRAIN_LIMIT) {
      await reader.cancel().catch(() => undefined);
      return { bytes: undefined, ended: false };
    }
  }
  return { bytes: size <= limit && keep ? Buffer.concat(chunks) : undefined, ended: true };
}

/**
 * Refuses a body larger than `limit` bytes with 413 `payload_too_large`, after reading it to its end
 * (up to {@link DRAIN_LIMIT}): a client still sending when the server answered would find the
 * connection reset rather than the 413, and a reused keep-alive connection would fail. A body
 * without a `Content-Length` (chunked) is read here and handed on as it came when within the limit.
 */
export function bodyLimit(limit: number): MiddlewareHandler {
  return async (c, next) => {
    // A body within its declared length is left to the route, unread: on Node, the route then reads
    // it straight from the socket, and no web stream (nor web Request) is made for it.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const length = c.req.header('content-length');
    const declared =
      length === undefined || c.req.header('transfer-encoding') !== undefined ? undefined : Number(length);
    if (declared !== undefined && declared <= limit) return next();
    const body = c.req.raw.body;
    if (body === null) return next();
    const read = await readBody(body, limit, declared === undefined);
    if (read.bytes === undefined) {
      if (!read.ended) c.header('Connection', 'close');
      return errorResponse(c, new PayloadTooLargeError(limit));
    }
    c.req.raw = new Request(c.req.raw, { body: read.bytes });
    return next();
  };
}
