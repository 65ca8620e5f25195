import { z } from 'zod';
import { unchecked } from '../options/option.js';
import type { Crew } from '../runtime/crew/crew.js';
import type { Store } from '../stores/store.js';
import type { ServableFlow, ServedRun } from './serve-call.js';

/** The options of `createMcpServer(...)`: each option's type, check, default and docs, once. */
export const mcpServeOptionsSchema = z.strictObject({
  /** The crews to serve, by key: each becomes a tool named after its key. @default {} */
  crews: unchecked<Readonly<Record<string, Crew>>>().optional(),
  /** The flows to serve, by key: each becomes a tool named after its key. @default {} */
  flows: unchecked<Readonly<Record<string, ServableFlow>>>().optional(),
  /**
   * Where the runs the tools start are kept (durable runs, resumable by their execution id; a flow
   * with a human step needs one). @default each definition's own store, else none
   */
  store: unchecked<Store>().optional(),
  /** The server's name, as the client's `initialize` sees it. @default 'statecrew' */
  name: unchecked<string>().default('statecrew'),
  /** The server's version. @default '0.1.0' */
  version: unchecked<string>().default('0.1.0'),
  /** Aborting it aborts every run in flight (each ends as an `aborted` error result). */
  signal: unchecked<AbortSignal>().optional(),
  /**
   * How to give the server a store, where it is started: what a `store_required` result tells the
   * user instead of naming the `store` option (the CLI names `--store`). @default the `store` option
   */
  storeHint: unchecked<string>().optional(),
  /** Called as soon as a tool call started a run (a store then already holds its id). */
  onRun: unchecked<(run: ServedRun) => void | Promise<void>>().optional(),
});

/** Options of {@link createMcpServer}. */
export interface McpServeOptions extends z.input<typeof mcpServeOptionsSchema> {}
