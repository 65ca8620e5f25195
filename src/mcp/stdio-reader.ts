import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** What one line from a server is: a message, a message too large to keep, or a line that is no message. */
export type ReadLine =
  | { kind: 'message'; message: JSONRPCMessage }
  | { kind: 'too-large'; bytes: number; id: RequestId | undefined }
  | { kind: 'invalid'; error: unknown };

/** How much of an oversized message's start and end is kept, to find which request it answers. */
const HEAD_BYTES = 512;
const TAIL_BYTES = 128;
const ID = String.raw`"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")`;
const JSONRPC = String.raw`(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?`;
/** A response that names its request first: `{"jsonrpc":"2.0","id":7,"result":…`. */
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*${JSONRPC}${ID}\s*,\s*${JSONRPC}"(?:result|error)"`);
/** A response that starts with its result (the SDK's servers): `{"result":…,"jsonrpc":"2.0","id":7}`. */
const RESULT_FIRST = /^\s*\{\s*"(?:result|error)"/;
const ID_LAST = new RegExp(String.raw`${ID}\s*\}\s*$`);

/**
 * Splits a server's stdout into JSON-RPC messages, one a line, keeping at most `limit` bytes of one.
 * A longer line is not kept: it is skipped to its end, and reported with its size and, when it is a
 * response, the id of the request it answers — so that one call fails and the connection goes on.
 */
export class MessageReader {
  readonly #limit: number;
  #parts: Buffer[] = [];
  #bytes = 0;
  /** The start of the line being skipped, once it grew past the limit. */
  #head: Buffer | undefined;
  #tail: Buffer = Buffer.alloc(0);

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** The lines that `chunk` completes, in order. */
  *push(chunk: Buffer): Generator<ReadLine> {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(10, start);
      this.#take(chunk.subarray(start, end === -1 ? chunk.length : end));
      if (end === -1) return;
      const line = this.#finish();
      if (line !== undefined) yield line;
      start = end + 1;
    }
  }

  /** Forgets any part of a line read so far. */
  clear(): void {
    this.#parts = [];
    this.#bytes = 0;
    this.#head = undefined;
    this.#tail = Buffer.alloc(0);
  }

  #take(piece: Buffer): void {
    if (this.#head === undefined && this.#bytes + piece.length > this.#limit) {
      const kept = [...this.#parts, piece];
      this.#head = Buffer.concat(kept, Math.min(HEAD_BYTES, this.#bytes + piece.length));
      this.#parts = [];
    }
    this.#bytes += piece.length;
    if (this.#head === undefined) this.#parts.push(piece);
    else
      this.#tail =
        piece.length >= TAIL_BYTES
          ? Buffer.from(piece.subarray(-TAIL_BYTES))
          : Buffer.concat([this.#tail, piece]).subarray(-TAIL_BYTES);
  }

  #finish(): ReadLine | undefined {
    const { head, tail } = { head: this.#head, tail: this.#tail };
    const bytes = this.#bytes;
    const text = head === undefined ? Buffer.concat(this.#parts).toString('utf8') : '';
    this.clear();
    if (head !== undefined) return { kind: 'too-large', bytes, id: answeredId(head, tail) };
    const line = text.replace(/\r$/, '');
    if (line.trim() === '') return undefined;
    try {
      return { kind: 'message', message: deserializeMessage(line) };
    } catch (error) {
      return { kind: 'invalid', error };
    }
  }
}

/** The id of the request a message answers, from its start and end; none when it is not a response. */
export function answeredId(head: Buffer, tail: Buffer): RequestId | undefined {
  const start = head.toString('utf8');
  const first = ID_FIRST.exec(start);
  if (first?.[1] !== undefined) return JSON.parse(first[1]) as RequestId;
  if (!RESULT_FIRST.test(start)) return undefined;
  const last = ID_LAST.exec(tail.toString('utf8'));
  return last?.[1] === undefined ? undefined : (JSON.parse(last[1]) as RequestId);
}
