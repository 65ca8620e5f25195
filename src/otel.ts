/**
 * `statecrew/otel`: a run's events as OpenTelemetry spans. Only `@opentelemetry/api` is loaded: with
 * no SDK registered its tracer records nothing and nothing leaves the process; spans are exported only
 * where the application set up an SDK and an exporter.
 */
import { createRequire } from 'node:module';
import { type Context, context, diag, type Tracer, trace } from '@opentelemetry/api';
import type { Subscribable, Unsubscribable } from 'rxjs';
import { RunTracer } from './otel/run-tracer.js';
import type { Agent } from './runtime/crew/agent.js';
import type { Crew } from './runtime/crew/crew.js';
import type { StatecrewEvent } from './types.js';

/**
 * Anything with a run's event stream: a `CrewRun` or a `FlowRun`.
 *
 * @example
 * const run: TraceableRun = flow.run({ inputs: { ticket: 'refund #12' } });
 */
export interface TraceableRun {
  readonly events$: Subscribable<StatecrewEvent>;
}

/**
 * Options of {@link traceRun}.
 *
 * @example
 * const options: TraceRunOptions = { tracer: provider.getTracer('my-app'), name: crew.name, captureContent: true };
 */
export interface TraceRunOptions {
  /** Where the spans go. @default trace.getTracer('statecrew', <statecrew's version>) (the global provider's) */
  tracer?: Tracer | undefined;
  /** The context the run's span starts in (a request's span, say). @default context.active() */
  parentContext?: Context | undefined;
  /**
   * Records prompts, contexts, outputs, tool arguments and results, step outputs and judge replies
   * as attributes. Off, spans carry names, ids, counts, times, error codes and error messages only.
   * @default false
   */
  captureContent?: boolean | undefined;
  /** The run's name in its span's name (`flow refund`, `crew research`): `flow.name`, `crew.name`. @default the process */
  name?: string | undefined;
  /**
   * Agent role → model id (`'openai:gpt-4.1-mini'`), for `chat <model>` spans and
   * `gen_ai.request.model`: see {@link modelsOf}. @default {} (model calls are `chat` spans)
   */
  models?: Readonly<Record<string, string>> | undefined;
}

/**
 * A run being traced.
 *
 * @example
 * const traced = traceRun(run);
 * await run.result;
 * await traced.done; // every span of the run has ended: flush the SDK's exporter now
 */
export interface RunTrace {
  /**
   * Resolves once every span of the run has ended: when its events complete, or at once when the
   * run's span is not recorded (no SDK, or sampled out), since then nothing more is followed.
   */
  readonly done: Promise<void>;
  /** Stops following the run; the spans still open end at the time of the last event seen. */
  unsubscribe(): void;
}

/**
 * What tells the models of agents: a crew (all its agents) or an agent.
 *
 * @example
 * const sources: ModelSource[] = [crew, reviewer];
 */
export type ModelSource = Crew | Agent;

const VERSION = ((): string | undefined => {
  try {
    // The package's own manifest sits one level above both `src/` and `dist/`.
    const manifest = createRequire(import.meta.url)('../package.json') as {
      name?: unknown;
      version?: unknown;
    };
    return manifest.name === 'statecrew' && typeof manifest.version === 'string'
      ? manifest.version
      : undefined;
  } catch {
    return undefined;
  }
})();

/**
 * Traces a run: a span per run (`crew <process>`, `flow <name>`), per flow step (`step <name>`), per
 * task run (`invoke_agent <role>`, all its attempts), per model call (`chat <model>`) and tool call
 * (`execute_tool <tool>`), per manager call and judge verdict; retries, blocked tasks, delegations,
 * routes, rounds, pauses, signals, timeouts and sleeps (with their wake time) are span events. A
 * paused flow run's span says what it waits for (`statecrew.flow.waiting`, `…waiting_events`,
 * `…timeout_at`); a step whose failure a `failed(step)` trigger handles is marked
 * `statecrew.step.handled` and does not make the run's error. A crew run inside a flow step nests under the
 * step's span. Times are the events' `at`, from the run's clock. Call it right after `run()`: the run
 * starts on the next microtask. Tracing never fails a run: a tracer that throws stops the tracing.
 *
 * @example
 * import { modelsOf, traceRun } from 'statecrew/otel';
 *
 * const run = crew.run({ inputs: { topic: 'AI' } });
 * traceRun(run, { name: crew.name, models: modelsOf(crew) });
 * const out = await run.result;
 */
export function traceRun(run: TraceableRun, options: TraceRunOptions = {}): RunTrace {
  const spans = new RunTracer({
    tracer: options.tracer ?? trace.getTracer('statecrew', VERSION),
    parentContext: options.parentContext ?? context.active(),
    captureContent: options.captureContent ?? false,
    name: options.name,
    models: options.models ?? {},
  });
  let subscription: Unsubscribable | undefined;
  let finished = false;
  let resolve = () => {};
  const done = new Promise<void>((r) => {
    resolve = r;
  });
  const finish = () => {
    if (finished) return;
    finished = true;
    subscription?.unsubscribe();
    try {
      spans.close();
    } catch (error) {
      diag.error('statecrew: ending the spans of a run failed', error);
    }
    resolve();
  };
  subscription = run.events$.subscribe({
    next(event) {
      if (finished) return;
      let following = false;
      try {
        following = spans.handle(event);
      } catch (error) {
        // A throw here would reach the run's own event hub: telemetry must never break a run.
        diag.error('statecrew: tracing a run failed; its tracing stopped', error);
      }
      if (!following) finish();
    },
    error: finish,
    complete: finish,
  });
  // The stream may have ended during `subscribe`, before `subscription` was set.
  if (finished) subscription.unsubscribe();
  return { done, unsubscribe: finish };
}

/**
 * Agent role → model id for {@link TraceRunOptions.models}, from crews (their agents, their tasks'
 * agents and their summary agent) and agents whose model has an `id`. Roles are the definitions':
 * a role with `{placeholders}` is interpolated in a run, and then not found.
 *
 * @example
 * traceRun(run, { models: modelsOf(crew, reviewer) }); // { Researcher: 'openai:gpt-4.1-mini', … }
 */
export function modelsOf(...sources: readonly ModelSource[]): Record<string, string> {
  const models: Record<string, string> = {};
  const add = (agent: Agent | undefined) => {
    const llm = agent?.llm;
    if (agent !== undefined && typeof llm === 'object' && typeof llm.id === 'string')
      models[agent.role] = llm.id;
  };
  for (const source of sources) {
    if (!('tasks' in source)) {
      add(source);
      continue;
    }
    for (const agent of source.agents) add(agent);
    for (const task of source.tasks) add(task.agent);
    add(source.summary?.agent);
  }
  return models;
}
