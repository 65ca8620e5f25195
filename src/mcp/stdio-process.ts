import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { McpStdioServer } from './options.js';
import { endGroup, OWN_GROUPS, trackGroup } from './process-group.js';
import { MessageReader, type ReadLine } from './stdio-reader.js';

/** The JSON-RPC error code of a response statecrew puts in place of one too large to read. */
export const TOO_LARGE_CODE = -32_099;
/** How long a server gets to exit once its stdin closed, and again after SIGTERM. */
const EXIT_WAIT_MS = 2000;

/** What the error that stands for a too-large response carries, besides the code. */
export interface TooLargeData {
  tooLarge: { bytes: number; limit: number };
}

/**
 * A stdio MCP server as a child process (the SDK's `StdioClientTransport`, with two differences): it
 * leads a process group of its own, ended whole when it closes or exits, so nothing it started stays
 * behind; and a message longer than `limit` bytes is skipped, not buffered — when it answers a request,
 * that request gets an error in its place (`TOO_LARGE_CODE`) and the connection goes on.
 */
export class StdioServerProcess implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #spec: McpStdioServer;
  readonly #limit: number;
  readonly #reader: MessageReader;
  readonly #stderr = new PassThrough();
  #child: ChildProcess | undefined;
  /** Resolves once the process's group has ended, after the process exited. */
  #groupEnded: Promise<void> = Promise.resolve();
  #lost: { bytes: number; limit: number } | undefined;

  constructor(spec: McpStdioServer, limit: number) {
    this.#spec = spec;
    this.#limit = limit;
    this.#reader = new MessageReader(limit);
  }

  /** What the process writes to stderr. */
  get stderr(): PassThrough {
    return this.#stderr;
  }

  /** The process's id, while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** A message too large to read that answered no request the connection could tell: it was closed. */
  get lost(): { bytes: number; limit: number } | undefined {
    return this.#lost;
  }

  /** Starts the process; resolves once it spawned, rejects when it cannot start. */
  start(): Promise<void> {
    if (this.#child !== undefined) throw new Error('The MCP server process was started already');
    return new Promise((resolve, reject) => {
      const child = spawn(this.#spec.command, [...(this.#spec.args ?? [])], {
        env: { ...getDefaultEnvironment(), ...this.#spec.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
        detached: OWN_GROUPS,
        ...(this.#spec.cwd === undefined ? {} : { cwd: this.#spec.cwd }),
      });
      this.#child = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => {
        if (OWN_GROUPS && child.pid !== undefined) this.#watchGroup(child, child.pid);
        resolve();
      });
      child.on('close', () => {
        if (this.#child === child) this.#child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.#read(chunk));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stderr?.pipe(this.#stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      const stdin = this.#child?.stdin;
      if (stdin === undefined || stdin === null) throw new Error('Not connected');
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /**
   * Ends the process as the SDK does (stdin closed, then SIGTERM, then SIGKILL, each after a wait),
   * then whatever is left of its group.
   */
  async close(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child !== undefined) {
      const exited = new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve();
        else child.once('exit', () => resolve());
      });
      child.stdin?.end();
      if (!(await within(exited, EXIT_WAIT_MS))) {
        child.kill('SIGTERM');
        if (!(await within(exited, EXIT_WAIT_MS))) child.kill('SIGKILL');
      }
    }
    this.#reader.clear();
    await this.#groupEnded;
  }

  /** Once the process exited (however), ends the rest of its group. */
  #watchGroup(child: ChildProcess, pgid: number): void {
    trackGroup(pgid);
    this.#groupEnded = new Promise((resolve) => {
      child.once('exit', () => {
        void endGroup(pgid).then(resolve);
      });
    });
  }

  #read(chunk: Buffer): void {
    for (const line of this.#reader.push(chunk)) this.#handle(line);
  }

  #handle(line: ReadLine): void {
    if (line.kind === 'message') this.onmessage?.(line.message);
    else if (line.kind === 'invalid') this.onerror?.(line.error as Error);
    else if (line.id !== undefined) this.onmessage?.(tooLargeAnswer(line.id, line.bytes, this.#limit));
    else {
      // Not a response to a request of ours, as far as can be told: the calls waiting cannot know
      // whether theirs was lost, so the connection ends (they fail at once).
      this.#lost = { bytes: line.bytes, limit: this.#limit };
      this.onerror?.(new Error(`The server sent a message of ${line.bytes} bytes (limit ${this.#limit})`));
      void this.close();
    }
  }
}

/** The error response that stands for a response of `bytes` bytes, too large to read. */
function tooLargeAnswer(id: RequestId, bytes: number, limit: number): JSONRPCMessage {
  const data: TooLargeData = { tooLarge: { bytes, limit } };
  const message = `The result was ${bytes} bytes, more than the ${limit} taken (maxResultBytes)`;
  return { jsonrpc: '2.0', id, error: { code: TOO_LARGE_CODE, message, data } };
}

/** Whether `promise` settled within `ms`. */
async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  const settled = await Promise.race([promise.then(() => true), late]);
  clearTimeout(timer);
  return settled;
}
