import { retryableByDefault, type StatecrewErrorCode } from './error-codes.js';
import type { MissingInput, MissingInputPlace } from './types.js';

export type { StatecrewErrorCode } from './error-codes.js';

/** Options every {@link StatecrewError} accepts. */
export interface StatecrewErrorOptions {
  /**
   * Whether a task attempt that failed with this error may be tried again.
   * @default its code's, as `ERROR_CODES` says (true for a code it does not hold)
   */
  retryable?: boolean;
  /** Structured facts about the failure (names, limits, the offending value). */
  details?: Record<string, unknown>;
  /** The error that caused this one. */
  cause?: unknown;
}

/**
 * The mark every {@link StatecrewError} carries, under a registered symbol: each copy of statecrew
 * loaded in one process (a project's own beside the one a global CLI brings) marks its errors with
 * the same one, so {@link isStatecrewError} knows them all where `instanceof` knows its own copy's only.
 */
const STATECREW_ERROR: unique symbol = Symbol.for('statecrew.error');

/**
 * The base of every error statecrew throws. `code` is the stable contract; the message says what was
 * wrong and where, and always ends with the code in parentheses. Each subclass narrows `code` to its
 * own literal.
 *
 * @example
 * try { await crew.kickoff(); } catch (e) { if (isStatecrewError(e, 'unknown_worker')) … }
 */
export class StatecrewError<C extends StatecrewErrorCode = StatecrewErrorCode> extends Error {
  /** Stable snake_case identifier of the failure. */
  readonly code: C;
  /** Whether a task attempt that failed with this error may be retried. */
  readonly retryable: boolean;
  /** Structured facts about the failure. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: C, what: string, options: StatecrewErrorOptions = {}) {
    super(`${what} (${code})`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? retryableByDefault(code);
    this.details = options.details ?? {};
  }
}
Object.defineProperty(StatecrewError.prototype, STATECREW_ERROR, { value: true });

/**
 * Whether `value` is an error statecrew threw (a {@link StatecrewError}, any subclass, from this copy
 * of statecrew or any other loaded beside it), and, given `code`, one with that code. Narrows `value`,
 * so `code`, `message`, `retryable` and `details` can be read without a cast. Prefer it to
 * `instanceof`, which is false for an error of another copy (a definitions module importing its own
 * statecrew, served by a global `statecrew` command).
 *
 * @example
 * try {
 *   await crew.kickoff();
 * } catch (error) {
 *   if (isStatecrewError(error, 'budget_exceeded')) console.log(error.details.spent);
 *   else if (isStatecrewError(error) && error.retryable) retryLater();
 *   else throw error;
 * }
 */
export function isStatecrewError<C extends StatecrewErrorCode>(
  value: unknown,
  code: C,
): value is StatecrewError<C>;
export function isStatecrewError(value: unknown, code?: StatecrewErrorCode | string): value is StatecrewError;
export function isStatecrewError(
  value: unknown,
  code?: StatecrewErrorCode | string,
): value is StatecrewError {
  if (typeof value !== 'object' || value === null) return false;
  const marked = value as { [STATECREW_ERROR]?: unknown; code?: unknown };
  if (marked[STATECREW_ERROR] !== true || typeof marked.code !== 'string') return false;
  return code === undefined || marked.code === code;
}

/**
 * What a thrown value says, as text: an `Error`'s message, a string as itself, anything else as JSON
 * (`{"code":429,"msg":"rate"}`), so a thrown plain object never becomes `[object Object]`.
 */
export function describeThrown(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === 'string') return value;
  if (value === undefined) return 'undefined';
  if (typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function')
    return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A run was cancelled through its `signal`. `cause` is the signal's reason; `partial` the result so far. */
export class RunAbortedError<P = unknown> extends StatecrewError<'aborted'> {
  /** The run's result as far as it got (a crew's result contract, or a flow's output). */
  readonly partial: P;

  constructor(run: string, reason: unknown, partial: P) {
    super('aborted', `Run "${run}" was aborted: ${describeThrown(reason)}`, {
      cause: reason,
      details: { run },
    });
    this.partial = partial;
  }
}

/**
 * A run was stopped gracefully (a `GracefulStop`: its server, worker or runner closing): it started
 * nothing more, gave its lease up and is kept `running`, for any runner to resume from its last
 * commit. `details.abandoned` names the nodes still in flight when the grace period ended.
 */
export class RunSuspendedError extends StatecrewError<'suspended'> {
  constructor(run: string, reason: unknown, abandoned: readonly string[]) {
    super('suspended', `Run "${run}" was suspended, to be resumed: ${describeThrown(reason)}`, {
      cause: reason,
      details: { run, abandoned: [...abandoned] },
    });
  }
}

/** A hierarchical crew's manager failed (threw, or its model did): the run is rejected with this. */
export class ManagerError extends StatecrewError<'manager_failed'> {
  constructor(phase: 'allocate' | 'synthesize', cause: unknown, task?: string) {
    const where = task === undefined ? phase : `${phase} for task "${task}"`;
    super('manager_failed', `Manager failed to ${where}: ${describeThrown(cause)}`, {
      cause,
      details: task === undefined ? { phase } : { phase, task },
    });
  }
}

/** A loop's judge failed (threw, or its model did) after an iteration: the run is rejected with this. */
export class JudgeCallError extends StatecrewError<'judge_failed'> {
  constructor(iteration: number, cause: unknown) {
    super('judge_failed', `Judge failed after iteration ${iteration}: ${describeThrown(cause)}`, {
      cause,
      details: { iteration },
    });
  }
}

/** A task's `context` names a task that runs later (or itself) in a sequential crew. */
export class ContextOrderError extends StatecrewError<'context_forward_reference'> {
  constructor(task: string, referenced: string) {
    super('context_forward_reference', `Task "${task}" references task "${referenced}", which runs later`, {
      details: { task, referenced },
    });
  }
}

/** A task's `context` names a task that is not part of the crew. */
export class UnknownContextTaskError extends StatecrewError<'unknown_context_task'> {
  constructor(task: string, referenced: string) {
    super(
      'unknown_context_task',
      `Task "${task}" references task "${referenced}", which is not in this crew`,
      {
        details: { task, referenced },
      },
    );
  }
}

/** Two tasks of one crew share a name (node ids must be unique). */
export class DuplicateTaskError extends StatecrewError<'duplicate_task'> {
  constructor(name: string, positions: readonly number[]) {
    super('duplicate_task', `Task name "${name}" is used by tasks at positions ${positions.join(' and ')}`, {
      details: { name, positions },
    });
  }
}

/** A task in a parallel crew names a context; parallel tasks see none (a graph crew runs dependencies). */
export class ContextInParallelError extends StatecrewError<'context_in_parallel'> {
  constructor(task: string) {
    super(
      'context_in_parallel',
      `Task "${task}" has a context, but parallel tasks see no context; use process: 'graph' to run it after its dependencies`,
      { details: { task } },
    );
  }
}

/**
 * The tasks of a graph crew depend on each other in a cycle, so none of them could ever start; or —
 * `steps` given, the step of each flow that runs the next — flows contain each other through their
 * flow and map steps (A runs B runs A), so no analysis of them could end.
 */
export class CycleError extends StatecrewError<'cycle'> {
  constructor(cycle: readonly string[], steps?: readonly string[]) {
    const message =
      steps === undefined
        ? `Tasks depend on each other in a cycle: ${[...cycle, cycle[0]].join(' → ')}`
        : `Flows contain each other: ${cycle.map((flow, i) => `"${flow}" (step "${steps[i]}")`).join(' → ')} → "${cycle[0]}"`;
    super('cycle', message, { details: steps === undefined ? { cycle } : { cycle, steps } });
  }
}

/** A loop's judge answered with something that does not start with YES or NO. */
export class JudgeError extends StatecrewError<'judge_unparseable'> {
  constructor(reply: string, iteration: number) {
    super(
      'judge_unparseable',
      `Judge's reply after iteration ${iteration} does not start with YES or NO: "${reply}"`,
      {
        details: { reply, iteration },
      },
    );
  }
}

/** A flow step name is used twice. */
export class DuplicateStepError extends StatecrewError<'duplicate_step'> {
  constructor(flow: string, step: string) {
    super('duplicate_step', `Flow "${flow}" already has a step named "${step}"`, {
      details: { flow, step },
    });
  }
}

/** A flow step and a route label share a name (they share one namespace). */
export class NameClashError extends StatecrewError<'name_clash'> {
  constructor(flow: string, name: string, router: string) {
    super('name_clash', `Flow "${flow}": "${name}" is both a step and a route label of router "${router}"`, {
      details: { flow, name, router },
    });
  }
}

/** A flow step's trigger includes the step itself. */
export class SelfTriggerError extends StatecrewError<'self_trigger'> {
  constructor(flow: string, step: string) {
    super('self_trigger', `Flow "${flow}": step "${step}" is triggered by itself`, {
      details: { flow, step },
    });
  }
}

/** A flow router was declared without its routes. */
export class MissingRoutesError extends StatecrewError<'missing_routes'> {
  constructor(flow: string, router: string) {
    super(
      'missing_routes',
      `Flow "${flow}": router "${router}" must declare its routes, e.g. { routes: ['yes', 'no'] }`,
      {
        details: { flow, router },
      },
    );
  }
}

/** A flow trigger names neither a step nor a declared route label. */
export class UnknownTriggerError extends StatecrewError<'unknown_trigger'> {
  constructor(flow: string, step: string, trigger: string) {
    super(
      'unknown_trigger',
      `Flow "${flow}": step "${step}" listens to "${trigger}", which is neither a step nor a route label`,
      {
        details: { flow, step, trigger },
      },
    );
  }
}

/** `kickoff({ routes })` names a router the flow does not have. */
export class UnknownRouterError extends StatecrewError<'unknown_router'> {
  constructor(flow: string, router: string, routers: readonly string[]) {
    super(
      'unknown_router',
      `Flow "${flow}" has no router "${router}" to force; its routers are: ${routers.map((r) => `"${r}"`).join(', ') || 'none'}`,
      { details: { flow, router, routers } },
    );
  }
}

/**
 * A flow router returned a label outside its declared routes, or a human answered a human step with
 * one (`of: 'human'`: `details.step` names the step instead of `details.router`).
 */
export class UnknownRouteError extends StatecrewError<'unknown_route'> {
  constructor(step: string, label: unknown, routes: readonly string[], of: 'router' | 'human' = 'router') {
    const shown = JSON.stringify(label) ?? String(label);
    const known = routes.map((r) => `"${r}"`).join(', ');
    super(
      'unknown_route',
      of === 'human'
        ? `Human step "${step}" was answered with route ${shown}, which is not one of its routes: ${known}`
        : `Router "${step}" returned ${shown}, which is not one of its routes: ${known}`,
      { details: { [of === 'human' ? 'step' : 'router']: step, label, routes } },
    );
  }
}

/** A flow step's trigger fired more often than its `maxRuns`. */
export class MaxRunsError extends StatecrewError<'max_runs'> {
  constructor(step: string, maxRuns: number) {
    super(
      'max_runs',
      `Step "${step}" was triggered a ${ordinal(maxRuns + 1)} time, but its maxRuns is ${maxRuns}`,
      {
        details: { step, maxRuns },
      },
    );
  }
}

/**
 * A run's inputs were refused: not a plain object (a string, an array, a number, `null`), holding a
 * value no `{placeholder}` can show (a crew's: a `Set`, a `Date`, a function), or not what a flow's
 * state schema accepts.
 */
export class InvalidInputsError extends StatecrewError<'invalid_inputs'> {
  constructor(what: string, details: Record<string, unknown> = {}) {
    super('invalid_inputs', what, { details });
  }

  /** Inputs that are not a plain object, for the run of `where` (`Crew "x"`, `Flow "y"`). */
  static notAnObject(where: string, received: unknown): InvalidInputsError {
    return new InvalidInputsError(
      `${where}: inputs must be a plain object of values for {placeholders}, got ${describe(received)}`,
      { where, received: describe(received) },
    );
  }

  /** Inputs of `where` holding a value at `path` (`inputs.customer.onPay`) that no store can keep. */
  static unstorable(where: string, path: string, reason: string): InvalidInputsError {
    return new InvalidInputsError(
      `${where}: inputs hold a value that cannot be stored at ${path}: ${reason}`,
      {
        where,
        path,
      },
    );
  }

  /** Inputs of `where` larger than `maxInputBytes` bytes of JSON, refused before any work. */
  static tooLarge(where: string, maxInputBytes: number): InvalidInputsError {
    return new InvalidInputsError(
      `${where}: inputs are larger than ${maxInputBytes} bytes as JSON (maxInputBytes): pass large data by reference (a file, a URL, a key), or raise maxInputBytes`,
      { where, limit: 'maxInputBytes', maxInputBytes },
    );
  }

  /** Inputs of `where` nested deeper than `maxDepth` levels, at `path` (`inputs.a.a.a…`). */
  static tooDeep(where: string, maxDepth: number, path: string): InvalidInputsError {
    const shown = path.length > 80 ? `${path.slice(0, 80)}…` : path;
    return new InvalidInputsError(`${where}: inputs nest deeper than ${maxDepth} levels, at ${shown}`, {
      where,
      limit: 'maxInputDepth',
      maxDepth,
      path,
    });
  }

  /**
   * An input whose value (at `path`, `inputs.people[0].tags`) is of a `type` no `{placeholder}` can
   * show: a placeholder takes strings, numbers, booleans, null, and plain objects and arrays of them.
   */
  static unshowable(where: string, key: string, path: string, type: string): InvalidInputsError {
    const at = path === `inputs.${key}` ? '' : ` at ${path}`;
    return new InvalidInputsError(
      `${where}: input "${key}" holds ${type}${at}, which a {placeholder} cannot show: inputs take strings, numbers, booleans, null, and plain objects and arrays of these`,
      { where, key, path, type },
    );
  }

  /** Inputs that do not fit the state schema of flow `flow`. */
  static notFitting(
    flow: string,
    issues: readonly { path: readonly PropertyKey[]; message: string }[],
  ): InvalidInputsError {
    return new InvalidInputsError(`Inputs of flow "${flow}" do not fit its state: ${listIssues(issues)}`, {
      flow,
      issues,
    });
  }
}

/**
 * A flow step left the state in a shape its schema refuses, or made a value no store can keep (a
 * function, a symbol, a class instance), named by its path: `state.customer.onPay`.
 */
export class InvalidStateError extends StatecrewError<'invalid_state'> {
  constructor(
    step: string,
    issues: readonly { path: readonly PropertyKey[]; message: string }[],
    what = `Step "${step}" left the state invalid: ${listIssues(issues)}`,
    extra: Record<string, unknown> = {},
  ) {
    super('invalid_state', what, { details: { step, issues, ...extra } });
  }

  /** Step `step` changed `state.id`, the run's id, which is fixed when the run starts. */
  static idChanged(step: string, id: string, changed: unknown): InvalidStateError {
    const message = `the run's id, fixed when it starts (give one with inputs.id)`;
    return new InvalidStateError(
      step,
      [{ path: ['id'], message }],
      `Step "${step}" changed state.id from "${id}" to ${JSON.stringify(changed) ?? String(changed)}: it is ${message}`,
      { path: 'state.id' },
    );
  }

  /** Step `step` made a value at `path` (`state.customer.onPay`) that no store can keep, for `reason`. */
  static unstorable(step: string, path: string, reason: string): InvalidStateError {
    return new InvalidStateError(
      step,
      [{ path: [path], message: reason }],
      `Step "${step}" made a value that cannot be stored at ${path}: ${reason}`,
      { path },
    );
  }
}

/** A flow has no start step, so nothing would ever run. */
export class NoStartError extends StatecrewError<'no_start'> {
  constructor(flow: string) {
    super('no_start', `Flow "${flow}" has no start step`, { details: { flow } });
  }
}

/** Two workers of a hierarchical crew share a role, so the manager could not tell them apart. */
export class DuplicateRoleError extends StatecrewError<'duplicate_role'> {
  constructor(role: string) {
    super('duplicate_role', `Role "${role}" is held by more than one agent`, {
      details: { role },
    });
  }
}

/** Where in a YAML file something is named: the file as given and its line (from 1). */
export interface FileLine {
  readonly file: string;
  readonly line?: number | undefined;
}

/** `"tasks.yaml line 4: "` for a place, `""` for none. */
function atFileLine(where: FileLine | undefined): string {
  if (where === undefined) return '';
  return `${where.file}${where.line === undefined ? '' : ` line ${where.line}`}: `;
}

/** A task has no agent in a process that needs one. */
/**
 * `loadCrew` was given several crews over one YAML (its `crews` option, as several `@CrewBase` classes
 * of a `crew.py`) and its `crew` option (the CLI's `--crew`) picked none of them.
 */
export class CrewNotPickedError extends StatecrewError<'crew_not_picked'> {
  constructor(crews: readonly string[]) {
    super(
      'crew_not_picked',
      `loadCrew: the crews option defines ${crews.length} crews (${crews.join(', ')}): pick one with the crew option (from the CLI: --crew <name>)`,
      { details: { crews: [...crews] } },
    );
  }
}

export class MissingAgentError extends StatecrewError<'missing_agent'> {
  /**
   * @param where the file and line of the task, when a YAML file defines it (the message then also
   *   says how to assign an agent to it)
   */
  constructor(task: string, process: string, where?: FileLine) {
    const how =
      where === undefined
        ? ''
        : `: give it an agent: key, pass loadCrew's assign option ({ ${task}: '<agent name>' }), or export const assign = { ${task}: '<agent name>' } from the crew's crew.ts (where CrewAI has crew.py, whose Task(config=..., agent=self.<agent>()) this is)`;
    super(
      'missing_agent',
      `${atFileLine(where)}Task "${task}" has no agent, which the ${process} process needs${how}`,
      {
        details: { task, process, ...where },
      },
    );
  }
}

/**
 * A run with `strictInputs` has `{identifier}` placeholders its inputs do not fill: each is named
 * with where it sits (`details.missingInputs`), before any model call.
 */
export class MissingInputError extends StatecrewError<'missing_input'> {
  constructor(where: string, missingInputs: readonly MissingInput[]) {
    const example = missingInputs.map((m) => `${m.name}: …`).join(', ');
    const flag = missingInputs.map((m) => `--input ${m.name}=…`).join(' ');
    super(
      'missing_input',
      `${where}: no input fills ${describeMissingInputs(missingInputs)}. Pass it in inputs ({ ${example} }; the CLI: ${flag}), or leave strictInputs off to send the braces as written`,
      { details: { where, missingInputs } },
    );
  }
}

/**
 * Unfilled placeholders as people read them:
 * `{topic} in task "research" description, agent "Researcher" goal; {year} in …`.
 */
export function describeMissingInputs(missingInputs: readonly MissingInput[]): string {
  return missingInputs.map((m) => `{${m.name}} in ${m.where.map(placeText).join(', ')}`).join('; ');
}

/** A place of an unfilled placeholder as people read it: `task "research" description`. */
function placeText(place: MissingInputPlace): string {
  if ('task' in place) return `task "${place.task}" ${place.field}`;
  if ('agent' in place) return `agent "${place.agent}" ${place.field}`;
  return `crew "${place.crew}" goal`;
}

/** A hierarchical crew was built without a manager. */
export class MissingManagerError extends StatecrewError<'missing_manager'> {
  constructor() {
    super('missing_manager', 'A hierarchical crew needs a `manager` option', {});
  }
}

/** The manager chose a role that no worker holds. */
export class UnknownWorkerError extends StatecrewError<'unknown_worker'> {
  constructor(role: string, knownRoles: readonly string[], task: string) {
    super(
      'unknown_worker',
      `Manager chose "${role}" for task "${task}", but the workers are: ${knownRoles.map((r) => `"${r}"`).join(', ')}`,
      { details: { role, knownRoles, task } },
    );
  }
}

/** An option has a value outside what it accepts. */
export class InvalidOptionError extends StatecrewError<'invalid_option'> {
  constructor(
    where: string,
    option: string,
    expected: string,
    received: unknown,
    /** The message, when the default one would not say it well; `suggestion` the option meant. */
    told?: { message: string; suggestion?: string | undefined },
  ) {
    const message =
      told?.message ?? `${where}: option "${option}" must be ${expected}, got ${describe(received)}`;
    const suggestion = told?.suggestion === undefined ? {} : { suggestion: told.suggestion };
    super('invalid_option', message, {
      details: { where, option, expected, ...suggestion },
    });
  }

  /** An option `where` does not know (a typo, a CrewAI spelling), with the known one closest to it. */
  static unknown(
    where: string,
    option: string,
    known: readonly string[],
    closest: string | undefined,
  ): InvalidOptionError {
    const hint = closest === undefined ? '' : ` (did you mean "${closest}"?)`;
    return new InvalidOptionError(where, option, `one of ${known.join(', ')}`, option, {
      message: `${where}: unknown option "${option}"${hint}`,
      suggestion: closest,
    });
  }
}

/** A model (or policy) answered with something that is not a usable reply. */
export class ModelResponseError extends StatecrewError<'invalid_model_response'> {
  constructor(agent: string, received: unknown) {
    super(
      'invalid_model_response',
      `Model of agent "${agent}" returned ${describe(received)} instead of text`,
      {
        details: { agent },
      },
    );
  }
}

/** A task's output did not match its `outputSchema`. Retryable: the model may do better. */
export class OutputValidationError extends StatecrewError<'output_invalid'> {
  constructor(task: string, issues: readonly { path: readonly PropertyKey[]; message: string }[]) {
    super('output_invalid', `Output of task "${task}" does not match its schema: ${listIssues(issues)}`, {
      details: { task, issues },
    });
  }
}

/** A task's guardrail rejected its output. Retryable: the model may do better. */
export class GuardrailError extends StatecrewError<'guardrail_rejected'> {
  constructor(task: string, reason: string) {
    super('guardrail_rejected', `Guardrail of task "${task}" rejected the output: ${reason}`, {
      details: { task, reason },
    });
  }
}

/** A task's guardrail rejected its output on the last attempt allowed: names the last reason. */
export class GuardrailFailedError extends StatecrewError<'guardrail_failed'> {
  constructor(task: string, reason: string, attempts: number) {
    super(
      'guardrail_failed',
      `Guardrail of task "${task}" rejected every attempt (${attempts}); the last reason: ${reason}`,
      { details: { task, reason, attempts } },
    );
  }
}

/** A task attempt ran past its `timeoutMs`. Retryable. */
export class TaskTimeoutError extends StatecrewError<'task_timeout'> {
  constructor(task: string, timeoutMs: number) {
    super('task_timeout', `Task "${task}" did not finish within ${timeoutMs} ms`, {
      details: { task, timeoutMs },
    });
  }
}

/** A step was forced down its failure branch (`routes: { step: 'failed' }`) without being called. */
export class ForcedFailureError extends StatecrewError<'forced_failure'> {
  constructor(step: string) {
    super('forced_failure', `Step "${step}" was forced to fail (routes: { ${step}: 'failed' })`, {
      details: { step },
    });
  }
}

/** A signal that no waiting step of the run waits for: the run is unchanged. */
export class NoWaiterError extends StatecrewError<'no_waiter'> {
  constructor(flow: string, id: string, event: string, why: string) {
    super('no_waiter', `Flow "${flow}" run "${id}" has no step waiting for event "${event}": ${why}`, {
      details: { flow, id, event },
    });
  }
}

/**
 * A signal or a human's answer came for a step whose deadline (`timeoutAt`, on the run's clock) had
 * passed: it is refused and the run is left as it was, for the runner (or a `resume` without an
 * answer) to time the step out down its `onTimeout` route.
 */
export class DeadlinePassedError extends StatecrewError<'deadline_passed'> {
  constructor(flow: string, id: string, step: string, timeoutAt: number, at: number) {
    const deadline = new Date(timeoutAt).toISOString();
    super(
      'deadline_passed',
      `Flow "${flow}" run "${id}": step "${step}" stopped waiting at ${deadline}, before this came at ${new Date(at).toISOString()}; it times out instead`,
      { details: { flow, id, step, timeoutAt, at } },
    );
  }
}

/** A flow step's attempt did not finish within its `timeoutMs` (retryable: a step's `retries` apply). */
export class StepTimeoutError extends StatecrewError<'step_timeout'> {
  constructor(step: string, timeoutMs: number) {
    super('step_timeout', `Step "${step}" did not finish within ${timeoutMs} ms`, {
      details: { step, timeoutMs },
    });
  }
}

/** An agent was still calling tools after `maxIter` model calls. */
export class MaxIterationsError extends StatecrewError<'max_iterations'> {
  constructor(agent: string, maxIter: number) {
    super('max_iterations', `Agent "${agent}" was still calling tools after ${maxIter} model calls`, {
      details: { agent, maxIter },
    });
  }
}

/** A scripted model was called more often than its script has replies. */
export class ScriptExhaustedError extends StatecrewError<'script_exhausted'> {
  constructor(calls: number, replies: number) {
    super('script_exhausted', `Scripted model was called ${calls} times but has only ${replies} replies`, {
      details: { calls, replies },
    });
  }
}

/** A stored row cannot be read back (not JSON, or missing its text): names where it is. */
export class CorruptSnapshotError extends StatecrewError<'corrupt_snapshot'> {
  constructor(collection: string, executionId: string, key: string, reason: string) {
    super('corrupt_snapshot', `Stored record ${collection}/${executionId}/${key} cannot be read: ${reason}`, {
      details: { collection, executionId, key },
    });
  }
}

/** A stored row, or a store's file, was written in a format version this statecrew does not know. */
export class SnapshotVersionError extends StatecrewError<'snapshot_version'> {
  /** `what`: the record or file, as the message names it (`stored record flow_runs/run-1/run`). */
  constructor(what: string, version: unknown) {
    super(
      'snapshot_version',
      `${what} has format version ${describe(version)}, which this version of statecrew cannot read`,
      { details: { what, version: String(version) } },
    );
  }
}

/** Something that needs a store (resuming, a human step) was asked of a crew or flow without one. */
export class StoreRequiredError extends StatecrewError<'store_required'> {
  constructor(what: string, needs: string) {
    super('store_required', `${what} needs a store to ${needs}: pass one as the \`store\` option`, {
      details: { what, needs },
    });
  }
}

/** No run with this execution id is in the store. */
export class RunNotFoundError extends StatecrewError<'run_not_found'> {
  constructor(what: string, executionId: string, reason?: string) {
    const why = reason === undefined ? '' : ` (${reason})`;
    super('run_not_found', `${what}: the store holds no run "${executionId}"${why}`, {
      details: { executionId },
    });
  }
}

/** A stored run belongs to another flow than the one asked to resume or fork it. */
export class FlowMismatchError extends StatecrewError<'flow_mismatch'> {
  constructor(flow: string, id: string, storedFlow: string) {
    super(
      'flow_mismatch',
      `Flow "${flow}" cannot go on with run "${id}": it is a run of flow "${storedFlow}"`,
      {
        details: { flow, id, storedFlow },
      },
    );
  }
}

/** Whose run an answer went to: a flow's (the default) or a crew's. */
export type AnsweredRun = 'flow' | 'crew';

const RUN_TITLE: Readonly<Record<AnsweredRun, string>> = { flow: 'Flow', crew: 'Crew' };

/**
 * A paused run was resumed without a usable answer for what it waits for (a flow's human step, a
 * crew's tool calls and reviews). `details` names the flow (`flow`) or the crew (`crew`).
 */
export class AnswerRequiredError extends StatecrewError<'answer_required'> {
  constructor(name: string, id: string, waiting: readonly string[], what: string, of: AnsweredRun = 'flow') {
    super(
      'answer_required',
      `${RUN_TITLE[of]} "${name}" run "${id}" waits for ${waiting.map((w) => `"${w}"`).join(', ')}: ${what}`,
      { details: { [of]: name, id, waiting: [...waiting] } },
    );
  }
}

/** An answer was given to a flow or crew run that is not waiting for one. */
export class NotPausedError extends StatecrewError<'not_paused'> {
  constructor(name: string, id: string, status: string, of: AnsweredRun = 'flow') {
    super(
      'not_paused',
      `${RUN_TITLE[of]} "${name}" run "${id}" is ${status}, not paused: it takes no answer`,
      {
        details: { [of]: name, id, status },
      },
    );
  }
}

/**
 * A human sent a task's output back (`crew.resume(id, { reviews })`) when no attempt was left to do
 * it again: the task fails for good.
 */
export class ReviewRejectedError extends StatecrewError<'review_rejected'> {
  constructor(task: string, feedback: string, attempts: number) {
    super(
      'review_rejected',
      `Task "${task}": a human rejected its output after its last attempt (${attempts}): ${feedback}`,
      { details: { task, feedback, attempts } },
    );
  }
}

/** An agent's `llm` names a provider nobody registered (`registerProvider`). */
export class UnknownProviderError extends StatecrewError<'unknown_provider'> {
  /**
   * @param where the file and line that name the model, when a YAML file does (then the message
   *   starts with them and the details hold them)
   */
  constructor(spec: string, provider: string, pkg: string | undefined, where?: FileLine) {
    const install = pkg === undefined ? 'install its AI SDK provider package' : `install ${pkg}`;
    super(
      'unknown_provider',
      `${atFileLine(where)}Model "${spec}" names provider "${provider}", which is not registered: ${install} and call registerProvider('${provider}', (id) => fromAiSdk(...))`,
      {
        details: { spec, provider, ...(pkg === undefined ? {} : { package: pkg }), ...where },
      },
    );
  }
}

/** A run's budget is spent: no model call starts after it (the work done is kept). */
export class BudgetExceededError extends StatecrewError<'budget_exceeded'> {
  constructor(limit: 'maxTokens' | 'maxCostUsd', budget: number, spent: number) {
    const what = limit === 'maxTokens' ? `${spent} tokens of ${budget}` : `$${spent} of $${budget}`;
    super('budget_exceeded', `The run's budget is spent (${what}): no more model calls`, {
      details: { limit, budget, spent },
    });
  }
}

/** A replayed model was asked something its cassette never recorded: shows the closest recording. */
export class CassetteMissError extends StatecrewError<'cassette_miss'> {
  constructor(cassette: string, request: unknown, closest: unknown) {
    const show = (value: unknown) => {
      const text = JSON.stringify(value) ?? String(value);
      return text.length > 400 ? `${text.slice(0, 400)}…` : text;
    };
    const near =
      closest === undefined ? 'the cassette is empty' : `the closest recorded request: ${show(closest)}`;
    super('cassette_miss', `Cassette ${cassette} holds no answer to ${show(request)}; ${near}`, {
      details: { cassette },
    });
  }
}

/** A store was used after `close()`. */
export class StoreClosedError extends StatecrewError<'store_closed'> {
  constructor(store: string) {
    super('store_closed', `${store} was used after close()`, { details: { store } });
  }
}

/**
 * A store's server or file cannot be reached, or refused a write (a full disk): the call fails at
 * once rather than wait forever. `details.cause` is the driver's code (`SQLITE_FULL`, `ECONNRESET`,
 * a PostgreSQL SQLSTATE such as `3D000`) when it gave one.
 */
export class StoreUnavailableError extends StatecrewError<'store_unavailable'> {
  constructor(store: string, where: string, cause: unknown) {
    const code = driverCode(cause);
    super('store_unavailable', `${store} cannot reach ${where}: ${describeThrown(cause)}`, {
      cause,
      details: { store, where, ...(code === undefined ? {} : { cause: code }) },
    });
  }
}

/** The code a driver error carries (`code`, else its cause's), if it is a string. */
function driverCode(error: unknown, depth = 0): string | undefined {
  if (typeof error !== 'object' || error === null || depth > 3) return undefined;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === 'string' && code !== '') return code;
  const inner = error instanceof AggregateError ? error.errors[0] : cause;
  return driverCode(inner, depth + 1);
}

/** An optional package a store (or another back-end) needs is not installed. */
export class MissingDependencyError extends StatecrewError<'missing_dependency'> {
  constructor(what: string, pkg: string, cause?: unknown) {
    super('missing_dependency', `${what} needs the package "${pkg}": install it with npm install ${pkg}`, {
      cause,
      details: { what, package: pkg },
    });
  }
}

/** A fork named a checkpoint the run's committed history does not hold. */
export class CheckpointNotFoundError extends StatecrewError<'checkpoint_not_found'> {
  constructor(what: string, runId: string, checkpoint: string | number, known: readonly string[]) {
    const shown = known.length > 12 ? [...known.slice(0, 12), '…'] : known;
    const list = known.length === 0 ? 'it has none committed yet' : `its checkpoints are ${shown.join(', ')}`;
    super(
      'checkpoint_not_found',
      `${what}: run "${runId}" has no committed checkpoint ${JSON.stringify(checkpoint)}; ${list}`,
      {
        details: { runId, checkpoint, known: [...known] },
      },
    );
  }
}

/** A kickoff on a thread whose latest run is still running or paused: one run per thread at a time. */
export class ThreadBusyError extends StatecrewError<'thread_busy'> {
  constructor(what: string, thread: string, runId: string, status: string) {
    super(
      'thread_busy',
      `${what}: thread "${thread}" is busy: its run "${runId}" is ${status}; wait for it to settle (or resume it) before the next kickoff on the thread`,
      { details: { thread, runId, status } },
    );
  }
}

/** A run cannot be resumed now: another owner holds its lease. */
export class RunLockedError extends StatecrewError<'run_locked'> {
  constructor(what: string, id: string, owner: string, expiresAt: number) {
    super(
      'run_locked',
      `${what}: run "${id}" is held by ${owner} until ${new Date(expiresAt).toISOString()}; wait for it to end, or for its lease to expire`,
      { details: { id, owner, expiresAt } },
    );
  }
}

/** A run's lease was taken by another owner while it ran: it stopped, starting nothing more. */
export class LeaseLostError extends StatecrewError<'lease_lost'> {
  constructor(id: string, owner?: string) {
    super(
      'lease_lost',
      `Run "${id}" lost its lease${owner === undefined ? '' : ` to ${owner}`}: it stopped and started nothing more; its new owner goes on with it`,
      { details: { id, ...(owner === undefined ? {} : { owner }) } },
    );
  }
}

/** A kickoff named a run id the store already holds (resume or replay it instead). */
export class RunExistsError extends StatecrewError<'run_exists'> {
  constructor(what: string, id: string, kind: string, name: string) {
    super(
      'run_exists',
      `${what}: the store already holds run "${id}" (a run of ${kind} "${name}"); resume or replay it instead`,
      { details: { id, kind, name } },
    );
  }
}

/**
 * An `Idempotency-Key` came again with a different request: the run it named was asked for with
 * another definition or other inputs (`details: { key, id }`).
 */
export class IdempotencyKeyReusedError extends StatecrewError<'idempotency_key_reused'> {
  constructor(where: string, key: string, id: string) {
    super(
      'idempotency_key_reused',
      `${where}: Idempotency-Key "${key}" already started run "${id}" with another definition or other inputs; use a new key for a new run`,
      { details: { key, id } },
    );
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing (undefined)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value.length > 60 ? `${value.slice(0, 60)}…` : value}"`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

function listIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/**
 * A YAML crew definition (or another configuration file) is wrong: its syntax, an unknown key, a
 * reference to something it does not define, a type. The message names the file, the line and the key.
 */
export class ConfigError extends StatecrewError<'invalid_config'> {
  constructor(file: string, line: number | undefined, what: string, key?: string) {
    super('invalid_config', `${file}${line === undefined ? '' : ` line ${line}`}: ${what}`, {
      details: { file, ...(line === undefined ? {} : { line }), ...(key === undefined ? {} : { key }) },
    });
  }
}

/**
 * A task's `outputFile` could not be written: the path leaves the crew's `baseDir` (and the crew does
 * not allow it, `allowOutsideFiles`), holds a shell metacharacter or a control character (as CrewAI
 * refuses them), or the write itself failed (`cause` says why). Never retried.
 */
export class OutputFileError extends StatecrewError<'output_file_failed'> {
  constructor(task: string, path: string, why: string, cause?: unknown) {
    super('output_file_failed', `Task "${task}" cannot write its output file "${path}": ${why}`, {
      details: { task, path },
      ...(cause === undefined ? {} : { cause }),
    });
  }
}

/**
 * A command was pointed at something it cannot use: a module with no crew or flow to run, an export
 * that is not one, a file that does not exist.
 */
export class UnknownCommandTargetError extends StatecrewError<'unknown_command_target'> {
  constructor(target: string, why: string) {
    super('unknown_command_target', `${target}: ${why}`, { details: { target } });
  }
}

/** A worker was asked for an agent its registry does not hold. */
export class UnknownAgentError extends StatecrewError<'unknown_agent'> {
  constructor(agent: string, known: readonly string[]) {
    super(
      'unknown_agent',
      `This worker's registry holds no agent "${agent}" (it holds ${known.length === 0 ? 'none' : known.map((k) => `"${k}"`).join(', ')})`,
      { details: { agent, known: [...known] } },
    );
  }
}

/** A worker was asked for a tool its registry does not hold. */
export class UnknownToolError extends StatecrewError<'unknown_tool'> {
  constructor(tool: string, agent: string) {
    super('unknown_tool', `This worker's registry holds no tool "${tool}" for agent "${agent}"`, {
      details: { tool, agent },
    });
  }
}

/** A worker was asked for an MCP server (a tool source) its registry does not hold. */
export class UnknownMcpServerError extends StatecrewError<'unknown_mcp_server'> {
  constructor(server: string, agent: string, known: readonly string[]) {
    const holds = known.length === 0 ? 'none' : known.map((k) => `"${k}"`).join(', ');
    super(
      'unknown_mcp_server',
      `This worker's registry holds no MCP server "${server}" for agent "${agent}" (it holds ${holds})`,
      { details: { server, agent, known: [...known] } },
    );
  }
}

/** A job queue's server cannot be reached: the call fails at once rather than wait forever. */
export class QueueUnavailableError extends StatecrewError<'queue_unavailable'> {
  constructor(queue: string, cause: unknown) {
    super('queue_unavailable', `Queue "${queue}" cannot reach its server: ${describeThrown(cause)}`, {
      cause,
      details: { queue },
    });
  }
}

/**
 * An MCP server cannot be reached: its process did not start or exited, it did not answer in time
 * (`connectTimeoutMs`, `callTimeoutMs`), or its connection closed and one reconnect failed. Retryable:
 * a later attempt connects again. `details.server` names the server, `details.reason` what failed.
 */
export class McpUnavailableError extends StatecrewError<'mcp_unavailable'> {
  constructor(server: string, reason: string, cause?: unknown) {
    super('mcp_unavailable', `MCP server "${server}" is unavailable: ${reason}`, {
      cause,
      details: { server, reason },
    });
  }
}

/**
 * An MCP tool's result is larger than its server's `maxResultBytes` (a stdio server's message, or an
 * HTTP server's result as JSON). Not retryable: the same call gives the same result. `details` names
 * the server, the tool (when known), the result's size and the limit, in bytes.
 */
export class McpResultTooLargeError extends StatecrewError<'mcp_result_too_large'> {
  constructor(server: string, tool: string | undefined, bytes: number, limit: number, cause?: unknown) {
    const what = tool === undefined ? 'a message' : `the result of tool "${tool}"`;
    super(
      'mcp_result_too_large',
      `MCP server "${server}" sent ${what} of ${bytes} bytes, more than its maxResultBytes (${limit} bytes)`,
      { cause, details: { server, ...(tool === undefined ? {} : { tool }), bytes, limit } },
    );
  }
}

/** A worker was asked to run a crew or flow its definitions do not hold. */
export class UnknownDefinitionError extends StatecrewError<'unknown_definition'> {
  /** `holder`: who was asked, as the message names it (`This worker`, `This server`). */
  constructor(name: string, known: readonly string[], holder = 'This worker') {
    super(
      'unknown_definition',
      `${holder} holds no crew or flow named "${name}" (it holds ${known.length === 0 ? 'none' : known.map((k) => `"${k}"`).join(', ')})`,
      { details: { name, known: [...known] } },
    );
  }
}

/** A flow's abstract state graph grew past the state budget of an analysis (`stateLimit`). */
export class AnalysisLimitError extends StatecrewError<'analysis_limit'> {
  constructor(flow: string, states: number) {
    super(
      'analysis_limit',
      `Flow "${flow}" has more than ${states} abstract states; raise stateLimit to analyse it`,
      {
        details: { flow, states },
      },
    );
  }
}

/** Runs of a flow took fewer of its routes than `expectRouteCoverage` asks for: names those not taken. */
export class RouteCoverageError extends StatecrewError<'route_coverage'> {
  constructor(ratio: number, min: number, uncovered: readonly string[]) {
    const percent = (n: number) => `${(n * 100).toFixed(0)}%`;
    super(
      'route_coverage',
      `Route coverage ${percent(ratio)} is below ${percent(min)}; not taken: ${uncovered.join(', ')}`,
      { details: { ratio, min, uncovered: [...uncovered] } },
    );
  }
}

/**
 * Something statecrew's own code relies on did not hold: a bug in statecrew, not in the caller's code
 * or options. The message says what was found; `details.where` names the check that found it. Not
 * retryable; please report it.
 */
export class InternalError extends StatecrewError<'internal_error'> {
  /** `where`: the function or method whose check failed (`taskAt`); `what`: what it found. */
  constructor(where: string, what: string, details: Record<string, unknown> = {}) {
    super('internal_error', `${what}: this is a bug in statecrew (in ${where}), please report it`, {
      details: { ...details, where },
    });
  }
}

/** One problem of a request, at its place: `body.definition`, `query.limit`, `params.id`. */
export interface RequestIssue {
  path: string;
  message: string;
}

/**
 * An HTTP request's body, query or path parameters do not fit what the route takes: the message
 * names every field that is wrong, `details.issues` lists them with their paths.
 */
export class InvalidRequestError extends StatecrewError<'invalid_request'> {
  constructor(route: string, issues: readonly RequestIssue[]) {
    super('invalid_request', `${route}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
      details: { route, issues: issues.map((i) => ({ ...i })) },
    });
  }
}

/** An HTTP request came without the bearer token the server takes, or with another one. */
export class UnauthorizedError extends StatecrewError<'unauthorized'> {
  constructor(reason: 'missing' | 'wrong') {
    const what =
      reason === 'missing'
        ? 'This server needs a bearer token: send the header "Authorization: Bearer <token>"'
        : 'The bearer token sent is not the one this server takes';
    super('unauthorized', what, { details: { reason } });
  }
}

/** An HTTP request's body is larger than the server takes. */
export class PayloadTooLargeError extends StatecrewError<'payload_too_large'> {
  constructor(limit: number) {
    super('payload_too_large', `The request body is larger than this server takes (${limit} bytes)`, {
      details: { limit },
    });
  }
}

/** An HTTP request named a path or method the server does not serve. */
export class UnknownEndpointError extends StatecrewError<'unknown_endpoint'> {
  constructor(method: string, path: string) {
    super('unknown_endpoint', `This server serves no ${method} ${path}: GET /openapi.json lists its routes`, {
      details: { method, path },
    });
  }
}

/** A run was asked to stop, but nothing runs it now: it is paused or it ended. */
export class NotRunningError extends StatecrewError<'not_running'> {
  constructor(id: string, status: string) {
    super('not_running', `Run "${id}" is ${status}: nothing runs it, so there is nothing to abort`, {
      details: { id, status },
    });
  }
}

/** A map step's `items` gave something it cannot run: no array, too many items, or bad item ids. */
export class InvalidMapItemsError extends StatecrewError<'invalid_map_items'> {
  constructor(flow: string, step: string, problem: string, details: Record<string, unknown> = {}) {
    super('invalid_map_items', `Flow "${flow}" map step "${step}": ${problem}`, {
      details: { flow, step, ...details },
    });
  }
}

/** An item of a map step failed after its retries, and the step does not allow failures. */
export class MapItemFailedError extends StatecrewError<'map_item_failed'> {
  constructor(
    step: string,
    item: { itemId: string; index: number; childId: string },
    failure: { message: string; code?: string | undefined },
  ) {
    const { itemId, index, childId } = item;
    super(
      'map_item_failed',
      `Map step "${step}": item "${itemId}" (#${index}, run ${childId}) failed: ${failure.message}`,
      {
        details: {
          step,
          itemId,
          index,
          childId,
          ...(failure.code === undefined ? {} : { code: failure.code }),
        },
      },
    );
  }
}

/** A flow step's child flow run failed. */
export class SubflowFailedError extends StatecrewError<'subflow_failed'> {
  constructor(
    step: string,
    child: { flow: string; runId: string },
    failed: { step?: string | undefined; message: string; code?: string | undefined },
  ) {
    const where = failed.step === undefined ? '' : ` at step "${failed.step}"`;
    super(
      'subflow_failed',
      `Flow step "${step}": its flow "${child.flow}" (run ${child.runId}) failed${where}: ${failed.message}`,
      {
        details: {
          step,
          flow: child.flow,
          runId: child.runId,
          ...(failed.step === undefined ? {} : { failedStep: failed.step }),
          ...(failed.code === undefined ? {} : { code: failed.code }),
        },
      },
    );
  }
}

/** An evaluation's dataset cannot be read: a missing or unknown file, or a case of the wrong shape. */
export class InvalidDatasetError extends StatecrewError<'invalid_dataset'> {
  /** `where`: the file (with its line) or the case's index in an array dataset. */
  constructor(where: string, problem: string, details: Record<string, unknown> = {}) {
    super('invalid_dataset', `Dataset ${where}: ${problem}`, { details: { where, ...details } });
  }
}

/** An evaluation report (a baseline, say) is not one `evaluate` wrote. */
export class InvalidReportError extends StatecrewError<'invalid_report'> {
  /** `where`: the file or what held the report; `field`: the first field that is wrong, when one is. */
  constructor(where: string, problem: string, field?: string) {
    super('invalid_report', `Evaluation report ${where}: ${problem}`, {
      details: { where, ...(field === undefined ? {} : { field }) },
    });
  }
}

/** No evaluation report is kept under `id` in the store read. */
export class EvalNotFoundError extends StatecrewError<'eval_not_found'> {
  constructor(what: string, id: string) {
    super('eval_not_found', `${what}: the store keeps no evaluation report "${id}"`, { details: { id } });
  }
}

/** A scorer could not score an output: kept as the case's score error (score 0), never thrown out of `evaluate`. */
export class ScorerFailedError extends StatecrewError<'scorer_failed'> {
  constructor(scorer: string, problem: string, options: { cause?: unknown; node?: string } = {}) {
    const on = options.node === undefined ? '' : ` on "${options.node}"`;
    super('scorer_failed', `Scorer "${scorer}"${on}: ${problem}`, {
      details: { scorer, ...(options.node === undefined ? {} : { node: options.node }) },
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
  }
}
