import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isStatecrewError } from '../errors.js';
import type { FlowOutput } from '../runtime/flow/flow-output.js';
import type { CrewOutput, Failure } from '../types.js';
import { pausedText, waitedEvents, waitingSteps } from './serve-paused.js';

/** Structured content as JSON carries it: no functions, no `undefined`, bigints as text. */
function plain(value: unknown): Record<string, unknown> {
  const bigints = (_key: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);
  let text: string | undefined;
  try {
    text = JSON.stringify(value, bigints);
  } catch {
    // A cycle: each object is written once, where it is first met.
    const seen = new WeakSet<object>();
    text = JSON.stringify(value, (key, v: unknown) => {
      if (typeof v !== 'object' || v === null) return bigints(key, v);
      if (seen.has(v)) return undefined;
      seen.add(v);
      return v;
    });
  }
  return text === undefined ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/** A value as the text of a result: strings as they are, anything else as JSON. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2) ?? '';
}

/** The failures of a run as lines: `<node>: <message>` (the message names its code). */
function failureLines(failures: Record<string, Failure>): string[] {
  return Object.entries(failures)
    .filter(([, failure]) => failure.handled !== true)
    .map(([node, failure]) => {
      const code =
        failure.code === undefined || failure.message.endsWith(`(${failure.code})`)
          ? ''
          : ` (${failure.code})`;
      return `${node}: ${failure.message}${code}`;
    });
}

/** A `store_required` error's message with `hint` saying how to give a store, from its details. */
function storeMessage(error: unknown, hint: string): string | undefined {
  const details = (error as { details?: { what?: unknown; needs?: unknown } }).details;
  if (typeof details?.what !== 'string' || typeof details.needs !== 'string') return undefined;
  return `${details.what} needs a store to ${details.needs}: ${hint} (store_required)`;
}

/**
 * A run that could not start, or was aborted: `isError`, with the error's code and message. With
 * `storeHint`, a `store_required` message says that instead of naming the `store` option.
 */
export function errorResult(error: unknown, executionId?: string, storeHint?: string): CallToolResult {
  const code = isStatecrewError(error) ? error.code : ((error as { code?: unknown } | null)?.code ?? 'error');
  const given = error instanceof Error ? error.message : String(error);
  const message =
    storeHint !== undefined && code === 'store_required' ? (storeMessage(error, storeHint) ?? given) : given;
  return {
    content: [{ type: 'text', text: message }],
    structuredContent: plain({ status: 'failed', executionId, error: { code: String(code), message } }),
    isError: true,
  };
}

/**
 * A crew run's result: its `raw` as text and `{ status, executionId, raw, tasks }` as structured
 * content; a failed or partial run is an error naming each failure; a paused one says what waits.
 */
export function crewResult(out: CrewOutput): CallToolResult {
  const executionId = out.metadata.executionId;
  const tasks = out.tasksOutput.map((task) => ({ name: task.name, raw: task.raw }));
  if (out.status === 'paused') {
    const text = `Crew run ${executionId} paused: ${out.pending?.length ?? 0} item(s) wait for a human. Answer with crew.resume("${executionId}", { approvals, reviews }).`;
    return {
      content: [{ type: 'text', text }],
      structuredContent: plain({ status: 'paused', executionId, raw: out.raw, tasks, pending: out.pending }),
    };
  }
  const structuredContent = plain({ status: out.status, executionId, raw: out.raw, tasks });
  if (out.status === 'completed') return { content: [{ type: 'text', text: out.raw }], structuredContent };
  const lines = failureLines(out.failures);
  return {
    content: [{ type: 'text', text: `Crew run ${executionId} ${out.status}:\n${lines.join('\n')}` }],
    structuredContent: { ...structuredContent, failures: plain(out.failures) },
    isError: true,
  };
}

/**
 * A flow run's result: its final output as text and `{ status, executionId, state, output, trail }`
 * as structured content; a failed run is an error naming each failure; a paused one gives its
 * `pending`, every step it waits for (`waiting`) and the events its wait steps wait for (`events`),
 * with what each step asks and how to go on (`statecrew resume`, or `statecrew signal` for an event)
 * as text.
 */
export function flowResult(out: FlowOutput<object>, flow: string): CallToolResult {
  const base = {
    status: out.status,
    executionId: out.id,
    state: out.state,
    output: out.output,
    trail: out.trail,
  };
  if (out.status === 'paused') {
    const waiting = waitingSteps(out);
    const events = waitedEvents(waiting);
    return {
      content: [{ type: 'text', text: pausedText(out, flow) }],
      structuredContent: plain({
        ...base,
        pending: out.pending,
        waiting,
        ...(events.length === 0 ? {} : { events }),
      }),
    };
  }
  if (out.status === 'completed') {
    return { content: [{ type: 'text', text: asText(out.output) }], structuredContent: plain(base) };
  }
  return {
    content: [
      {
        type: 'text',
        text: `Flow "${flow}" run ${out.id} failed:\n${failureLines(out.failures).join('\n')}`,
      },
    ],
    structuredContent: plain({ ...base, failures: out.failures }),
    isError: true,
  };
}
