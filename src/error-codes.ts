/** What one error code says: whether an attempt that failed with it may be tried again, and what it means. */
export interface ErrorCodeEntry {
  /** Whether a task attempt (or a flow step's) that failed with it may be retried; an error may say otherwise. */
  readonly retryable: boolean;
  /** What went wrong, in one line. */
  readonly meaning: string;
}

/**
 * Every stable error code statecrew uses, described once: the contract that survives JSON, queues and
 * stores. {@link StatecrewErrorCode} is its keys, a `StatecrewError`'s `retryable` defaults to its
 * entry's, and `docs/reference.md` lists it with the class that throws each code.
 */
export const ERROR_CODES = {
  aborted: {
    retryable: false,
    meaning:
      "A run was cancelled through its `signal`; `cause` is the signal's reason, `partial` the result so far.",
  },
  analysis_limit: {
    retryable: false,
    meaning: "A flow's abstract state graph grew past the analysis's `stateLimit`.",
  },
  budget_exceeded: {
    retryable: false,
    meaning: "A run's budget is spent: no model call starts after it (the work done is kept).",
  },
  cassette_miss: {
    retryable: false,
    meaning:
      'A replayed model was asked something its cassette never recorded (the closest recording is shown).',
  },
  answer_required: {
    retryable: false,
    meaning: 'A paused run was resumed without a usable answer for what it waits for.',
  },
  crew_not_picked: {
    retryable: false,
    meaning:
      '`loadCrew` was given several crews over one YAML (`crews`) and none was picked (`crew`, `--crew`).',
  },
  checkpoint_not_found: {
    retryable: false,
    meaning:
      "A fork named a checkpoint the run's committed history does not hold (`details.known` lists the checkpoints).",
  },
  context_forward_reference: {
    retryable: false,
    meaning: "A task's `context` names a task that runs later (or itself) in a sequential crew.",
  },
  context_in_parallel: {
    retryable: false,
    meaning: "A task of a parallel crew names a context; parallel tasks see none (use `process: 'graph'`).",
  },
  corrupt_snapshot: {
    retryable: false,
    meaning: 'A stored record cannot be read back (not JSON, or missing its text); names where it is.',
  },
  cycle: {
    retryable: false,
    meaning:
      'The tasks of a graph crew depend on each other in a cycle, so none of them could start; or flows contain each other through their flow and map steps.',
  },
  deadline_passed: {
    retryable: false,
    meaning:
      'A signal or answer came after the deadline of the step waiting for it: refused, the step times out instead.',
  },
  duplicate_role: {
    retryable: false,
    meaning: 'Two workers of a hierarchical crew share a role, so the manager could not tell them apart.',
  },
  duplicate_step: { retryable: false, meaning: 'A flow step name is used twice.' },
  duplicate_task: {
    retryable: false,
    meaning: 'Two tasks of one crew share a name (node ids must be unique).',
  },
  eval_not_found: {
    retryable: false,
    meaning: 'No evaluation report is kept under that id in the store (`GET /evals/:id`; `details.id`).',
  },
  flow_mismatch: {
    retryable: false,
    meaning: 'A stored run belongs to another flow than the one asked to resume or fork it.',
  },
  forced_failure: {
    retryable: false,
    meaning: "A step was forced down its failure branch (`routes: { step: 'failed' }`) without being called.",
  },
  guardrail_failed: {
    retryable: false,
    meaning: "A task's guardrail rejected its output on the last attempt allowed; names the last reason.",
  },
  guardrail_rejected: {
    retryable: true,
    meaning: "A task's guardrail rejected its output; the next attempt is told why.",
  },
  idempotency_key_reused: {
    retryable: false,
    meaning:
      '`POST /runs` got an `Idempotency-Key` again with another definition or other inputs than the run it started.',
  },
  internal_error: {
    retryable: false,
    meaning: "Something statecrew's own code relies on did not hold: a bug in statecrew, please report it.",
  },
  invalid_config: {
    retryable: false,
    meaning:
      'A YAML crew file (or another configuration file) is wrong; the message names the file, line and key.',
  },
  invalid_dataset: {
    retryable: false,
    meaning:
      "An evaluation's dataset is not what `evaluate` reads: a file that is missing or not `.jsonl`, `.json`, `.yaml` or `.yml`, or a case that is not `{ inputs, expected?, expectedOutputs?, id? }` (the message names the file, line or index, and what is wrong).",
  },
  invalid_inputs: {
    retryable: false,
    meaning:
      "A run's inputs are not a plain object, are larger than `maxInputBytes` or nested deeper than 100 levels, hold a value no `{placeholder}` can show (a crew's: a `Set`, a `Map`, a `Date`, a class instance, a function, a circular reference; `details.key`, `details.path`, `details.type`), or are not what a flow's state schema accepts.",
  },
  invalid_map_items: {
    retryable: false,
    meaning:
      "A map step's `items` gave no array, more than `maxItems` items, or item ids that are empty, not text, contain `/` or repeat.",
  },
  invalid_model_response: {
    retryable: false,
    meaning: 'A model (or policy) answered with something that is not a usable reply.',
  },
  invalid_option: {
    retryable: false,
    meaning: 'An option is unknown (the closest known one is named) or has a value outside what it accepts.',
  },
  invalid_request: {
    retryable: false,
    meaning: "An HTTP request's body, query or path parameters do not fit its route; each field is named.",
  },
  invalid_report: {
    retryable: false,
    meaning:
      'An evaluation report (a baseline, say) is not one `evaluate` wrote: not JSON, another format, or a field missing (`details.where`, `details.field`).',
  },
  invalid_state: {
    retryable: false,
    meaning:
      'A flow step left the state as its schema refuses, or made a value no store can keep (named by its path).',
  },
  judge_failed: {
    retryable: false,
    meaning: "A loop's judge failed (threw, or its model did) after an iteration: the run is rejected.",
  },
  judge_unparseable: {
    retryable: false,
    meaning: "A loop's judge answered with something that does not start with YES or NO.",
  },
  manager_failed: {
    retryable: false,
    meaning: "A hierarchical crew's manager failed (threw, or its model did): the run is rejected.",
  },
  lease_lost: {
    retryable: false,
    meaning: "A run's lease was taken by another owner while it ran: it stopped, starting nothing more.",
  },
  map_item_failed: {
    retryable: false,
    meaning:
      'An item of a map step failed after its retries, and the step does not allow failures (`details.itemId`, `index`, `childId`, `code`).',
  },
  max_iterations: {
    retryable: true,
    meaning: 'An agent was still calling tools after `maxIter` model calls.',
  },
  max_runs: { retryable: false, meaning: "A flow step's trigger fired more often than its `maxRuns`." },
  mcp_unavailable: {
    retryable: true,
    meaning:
      'An MCP server cannot be reached: it did not start, did not answer in time, or its connection closed.',
  },
  mcp_result_too_large: {
    retryable: false,
    meaning:
      "An MCP tool's result is larger than its server's `maxResultBytes`: calling again gives the same.",
  },
  missing_agent: { retryable: false, meaning: 'A task has no agent in a process that needs one.' },
  missing_dependency: {
    retryable: false,
    meaning: 'An optional package a store (or another back-end) needs is not installed.',
  },
  missing_input: {
    retryable: false,
    meaning:
      'A run with `strictInputs` has `{placeholders}` its inputs do not fill (`details.missingInputs`).',
  },
  missing_manager: { retryable: false, meaning: 'A hierarchical crew was built without a manager.' },
  missing_routes: {
    retryable: false,
    meaning: 'A flow router (or human step) was declared without its routes.',
  },
  name_clash: {
    retryable: false,
    meaning: 'A flow step and a route label share a name (they share one namespace).',
  },
  no_start: { retryable: false, meaning: 'A flow has no start step, so nothing would ever run.' },
  no_waiter: {
    retryable: false,
    meaning: 'A signal that no waiting step of the run waits for: the run is unchanged.',
  },
  not_paused: {
    retryable: false,
    meaning: 'An answer was given to a flow or crew run that is not waiting for one.',
  },
  not_running: {
    retryable: false,
    meaning: 'A run was asked to stop, but nothing runs it now: it is paused or it ended.',
  },
  output_file_failed: {
    retryable: false,
    meaning:
      "A task's `outputFile` could not be written, leaves the crew's `baseDir` without `allowOutsideFiles`, or holds a shell metacharacter or a control character.",
  },
  output_invalid: {
    retryable: true,
    meaning: "A task's output did not match its `outputSchema`; the model may do better.",
  },
  payload_too_large: {
    retryable: false,
    meaning: "An HTTP request's body is larger than the server takes (`bodyLimit`).",
  },
  review_rejected: {
    retryable: false,
    meaning: "A human sent a task's output back when no attempt was left: the task fails for good.",
  },
  queue_unavailable: {
    retryable: true,
    meaning: "A job queue's server cannot be reached: the call fails at once rather than wait forever.",
  },
  route_coverage: {
    retryable: false,
    meaning:
      'Runs of a flow took fewer of its routes than `expectRouteCoverage` asks for; names those not taken.',
  },
  run_exists: {
    retryable: false,
    meaning: 'A kickoff named a run id the store already holds (resume or replay it instead).',
  },
  run_locked: {
    retryable: true,
    meaning: 'A run cannot be resumed now: another owner holds its lease (`details: { owner, expiresAt }`).',
  },
  run_not_found: { retryable: false, meaning: 'No run with this id is in the store.' },
  script_exhausted: {
    retryable: false,
    meaning: 'A scripted model was called more often than its script has replies.',
  },
  self_trigger: { retryable: false, meaning: "A flow step's trigger includes the step itself." },
  snapshot_version: {
    retryable: false,
    meaning: 'A stored record, or a store file, has a format version this statecrew cannot read.',
  },
  thread_busy: {
    retryable: true,
    meaning:
      'A kickoff on a thread whose latest run is still running or paused: one run per thread at a time (`details.runId`).',
  },
  subflow_failed: {
    retryable: false,
    meaning:
      "A flow step's child flow run failed (`details.runId`, the child's failed `step` and its `code`).",
  },
  store_closed: { retryable: false, meaning: 'A store was used after `close()`.' },
  store_required: {
    retryable: false,
    meaning:
      'Something that needs a store (a resume, a human or wait step) was asked of a crew or flow without one.',
  },
  scorer_failed: {
    retryable: false,
    meaning:
      "A scorer could not score an output: it threw, gave something that is not a number from 0 to 1, a boolean or `{ score }`, or a judge's reply held no score on its scale. The case's score is 0 with this error; the evaluation goes on.",
  },
  store_unavailable: {
    retryable: true,
    meaning: "A store cannot be reached, or refused a write; `details.cause` is the driver's code.",
  },
  step_timeout: {
    retryable: true,
    meaning: "A flow step's attempt, or a waiting step, did not finish within its `timeoutMs`.",
  },
  suspended: {
    retryable: false,
    meaning:
      'A run was stopped gracefully (its process stopping): kept `running` with no lease, for any runner to resume.',
  },
  task_timeout: { retryable: true, meaning: 'A task attempt ran past its `timeoutMs`.' },
  unknown_agent: { retryable: false, meaning: 'A worker was asked for an agent its registry does not hold.' },
  unknown_command_target: {
    retryable: false,
    meaning: 'A command was pointed at something it cannot use (no crew or flow there, no such file).',
  },
  unknown_context_task: {
    retryable: false,
    meaning: "A task's `context` names a task that is not part of the crew.",
  },
  unknown_definition: {
    retryable: false,
    meaning: 'A worker or server was asked to run a crew or flow it does not hold.',
  },
  unknown_endpoint: {
    retryable: false,
    meaning: 'An HTTP request named a path or method the server does not serve.',
  },
  unknown_mcp_server: {
    retryable: false,
    meaning: 'A worker was asked for an MCP server its registry does not hold.',
  },
  unknown_provider: {
    retryable: false,
    meaning: "An agent's `llm` names a provider nobody registered (`registerProvider`).",
  },
  unknown_tool: { retryable: false, meaning: 'A worker was asked for a tool its registry does not hold.' },
  unknown_route: {
    retryable: false,
    meaning: 'A router returned (or was forced to) a label outside its routes, or a human answered with one.',
  },
  unknown_router: {
    retryable: false,
    meaning: '`kickoff({ routes })` names a router the flow does not have.',
  },
  unknown_trigger: {
    retryable: false,
    meaning: 'A flow trigger names neither a step nor a declared route label.',
  },
  unknown_worker: { retryable: false, meaning: 'The manager chose a role that no worker holds.' },
  unauthorized: {
    retryable: false,
    meaning: 'An HTTP request came without the bearer token the server takes, or with another one.',
  },
} as const satisfies Readonly<Record<string, ErrorCodeEntry>>;

/** Every stable error code statecrew uses: the contract that survives JSON, queues and stores. */
export type StatecrewErrorCode = keyof typeof ERROR_CODES;

/** The `retryable` of code `code`: its entry's, and `true` for a code the table does not hold. */
export function retryableByDefault(code: string): boolean {
  return Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code as StatecrewErrorCode].retryable : true;
}
