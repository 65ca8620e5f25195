import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Observable } from 'rxjs';
import type { ZodType } from 'zod';
import type { StepShape } from '../machines/flow/step-shape.js';
import type { Crew } from '../runtime/crew/crew.js';
import type { FlowOutput } from '../runtime/flow/flow-output.js';
import type { FlowRunOptions } from '../runtime/flow/flow-run-options.js';
import type { Store } from '../stores/store.js';
import type { StatecrewEvent } from '../types.js';
import { crewResult, errorResult, flowResult } from './serve-result.js';

/** What a tool call's handler gets from the SDK besides its arguments. */
export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A run a tool call started, as `onRun` hears of it. */
export interface ServedRun {
  kind: 'crew' | 'flow';
  /** The key the crew or flow is served under. */
  key: string;
  /** The tool's name. */
  tool: string;
  /** The crew's or flow's own name. */
  name: string;
  /** The run's execution id (a flow's: its state id). */
  id: string;
  /** The store the call named for the run (`store` of the server), if any. */
  store: Store | undefined;
  /** Resolves (never rejects) once the run ended, whichever way. */
  settled: Promise<void>;
}

/** What every call of one server shares. */
export interface CallSettings {
  store: Store | undefined;
  signal: AbortSignal | undefined;
  onRun: ((run: ServedRun) => void | Promise<void>) | undefined;
  /** What a `store_required` result says to do instead of naming the `store` option. */
  storeHint: string | undefined;
}

/**
 * What serving a flow needs of it: any `createFlow(...)` definition, whatever its state type (a
 * `Flow<S>` is not a `Flow<object>`, its steps read `S`).
 */
export interface ServableFlow {
  readonly name: string;
  readonly definition: {
    readonly steps: readonly StepShape[];
    readonly state: { kind: 'free'; initial: object } | { kind: 'schema'; schema: ZodType };
  };
  run(options?: FlowRunOptions): {
    id: string;
    events$: Observable<StatecrewEvent>;
    result: Promise<FlowOutput<object>>;
  };
}

/** One served definition: what its tool calls run. */
export type Served =
  | { kind: 'crew'; crew: Crew; key: string; tool: string }
  | {
      kind: 'flow';
      flow: ServableFlow;
      key: string;
      tool: string;
    };

/** The abort signal of a call: the client's cancellation, or the server's own signal. */
function callSignal(extra: CallExtra, settings: CallSettings): AbortSignal {
  return settings.signal === undefined ? extra.signal : AbortSignal.any([extra.signal, settings.signal]);
}

/**
 * Sends `notifications/progress` for each node of the run that settles (completed, failed for good,
 * or blocked), when the client asked with a progress token: `progress` the nodes settled so far,
 * `total` the crew's task count when known. Resolves, once the run's events end, after every
 * notification was handed to the transport.
 */
function reportProgress(
  id: string,
  events$: Observable<StatecrewEvent>,
  extra: CallExtra,
  total: number | undefined,
): Promise<void> {
  const token = extra._meta?.progressToken;
  if (token === undefined) return Promise.resolve();
  let settled = 0;
  let sent: Promise<void> = Promise.resolve();
  const send = (message: string) => {
    settled += 1;
    const params = { progressToken: token, progress: settled, message };
    const withTotal = total !== undefined && settled <= total ? { ...params, total } : params;
    sent = sent.then(() =>
      extra.sendNotification({ method: 'notifications/progress', params: withTotal }).catch(() => {}),
    );
  };
  return new Promise((resolve) => {
    events$.subscribe({
      next: (event) => {
        if (event.runId !== id) return;
        if (event.type === 'node.completed') send(`${event.nodeId} completed`);
        else if (event.type === 'node.failed' && !event.willRetry)
          send(`${event.nodeId} failed: ${event.error}`);
        else if (event.type === 'node.blocked') send(`${event.nodeId} blocked: ${event.reason}`);
      },
      error: () => resolve(sent),
      complete: () => resolve(sent),
    });
  });
}

/** Runs a served crew or flow for one tool call and turns its end into the call's result. */
export async function callServed(
  served: Served,
  inputs: Record<string, unknown>,
  extra: CallExtra,
  settings: CallSettings,
): Promise<CallToolResult> {
  const signal = callSignal(extra, settings);
  const { store } = settings;
  let run: { id: string; events$: Observable<StatecrewEvent>; result: Promise<unknown> };
  let total: number | undefined;
  try {
    if (served.kind === 'crew') {
      run = served.crew.run({ inputs, signal, ...(store === undefined ? {} : { store }) });
      total = served.crew.processShape().repeats ? undefined : served.crew.tasks.length;
    } else {
      run = served.flow.run({ inputs, signal, ...(store === undefined ? {} : { store }) });
    }
  } catch (error) {
    return errorResult(error, undefined, settings.storeHint);
  }
  const progress = reportProgress(run.id, run.events$, extra, total);
  const name = served.kind === 'crew' ? served.crew.name : served.flow.name;
  const settled = run.result.then(
    () => undefined,
    () => undefined,
  );
  const heard = { kind: served.kind, key: served.key, tool: served.tool, name, id: run.id, store, settled };
  // Through a promise: an `onRun` that throws becomes this call's error, never the server's.
  const noted = Promise.resolve().then(() => settings.onRun?.(heard));
  const [note, out] = await Promise.allSettled([noted, run.result]);
  await progress;
  if (out.status === 'rejected') return errorResult(out.reason, run.id, settings.storeHint);
  if (note.status === 'rejected') return errorResult(note.reason, run.id);
  return served.kind === 'crew'
    ? crewResult(out.value as Awaited<ReturnType<Crew['kickoff']>>)
    : flowResult(out.value as FlowOutput<object>, served.flow.name);
}
