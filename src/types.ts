/** Token and call counts of one model call, a node, or a whole run. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  calls: number;
  /** Present only when some model reported a cost. */
  costUsd?: number;
}

/** What a model may report about one call; missing counts are taken as 0. */
export interface ModelUsage {
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
}

/** A model's request to call a tool. */
export interface ToolCall {
  id: string;
  name: string;
  args: unknown;
}

/** One message of the conversation an agent holds with its model during a task attempt. */
export type ModelMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/** A tool as the model sees it: a name, what it does, and a JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** Everything a {@link Model} gets for one call. */
export interface ModelRequest {
  /** The role of the calling agent. */
  agent: string;
  /** The system message: the agent's persona (`You are <role>. Your goal: …`); '' when there is none. */
  system: string;
  /** The rendered task prompt, persona included (see `Agent.renderPrompt`): what a policy reads. */
  prompt: string;
  /** Outputs of earlier tasks that this task reads; '' when none. */
  context: string;
  /**
   * The conversation so far, after the system message: the task (its `Task:` and `Expected output:`
   * lines) with its context first, then tool calls and their results.
   */
  messages: ModelMessage[];
  /** Tools the agent may call. */
  tools: ToolSpec[];
  /** Aborted when the run is cancelled or the attempt times out. */
  signal: AbortSignal;
  /**
   * The JSON Schema the answer must follow, when the task has an `outputSchema`: a model that can
   * should use its provider's structured-output mode (statecrew parses and validates the text either way).
   */
  schema?: Record<string, unknown>;
  /** The agent's sampling temperature, when it sets one (a model's own setting otherwise). */
  temperature?: number;
  /** The agent's cap on the answer's tokens, when it sets one. */
  maxOutputTokens?: number;
  /**
   * Set when the agent streams: a model that can should call it with each piece of text as it comes
   * (the response's `text` is still the whole text). A model that cannot ignores it.
   */
  onDelta?: (delta: string) => void;
}

/** A model's answer: text, or tool calls to make before answering. */
export interface ModelResponse {
  text: string;
  toolCalls?: ToolCall[];
  usage?: ModelUsage;
  /** Why the model stopped (`stop`, `tool-calls`, `length`, …), as its provider says. */
  finishReason?: string;
  /** The provider's own response, for debugging; statecrew never reads it. */
  raw?: unknown;
}

/** Anything that answers a {@link ModelRequest}: a real provider, a scripted model, a recording. */
export interface Model {
  generate(request: ModelRequest): Promise<ModelResponse>;
  /** What the model is, as a price table names it (`'openai:gpt-4.1-mini'`). */
  readonly id?: string;
  /** Calls a minute at most, shared by every agent that uses this model: calls wait their turn. */
  readonly maxRpm?: number;
}

/** What a model's tokens cost, in US dollars per million. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}

/**
 * What a run does around every model call, whoever makes it (a task's agent, a manager, a judge):
 * refuse it once the budget is spent, and price it when its model reports no cost.
 */
export interface CallGate {
  /** Throws `budget_exceeded` when the run's budget is spent. */
  beforeCall?(): void;
  /** The price of a model's tokens, by its id. */
  priceOf?(modelId: string): ModelPrice | undefined;
}

/** What a {@link Policy} gets besides its prompt and context. */
export interface PolicyOptions {
  /** Aborted when the run is cancelled or the attempt times out: pass it on to cancel your own work. */
  signal: AbortSignal;
}

/** The simplest model: a function from prompt and context to text. */
export type Policy = (prompt: string, context: string, options: PolicyOptions) => string | Promise<string>;

/** What an agent thinks with. */
export type Llm = Policy | Model;

/**
 * Why a node failed, in a form that survives JSON, a queue or a store (an `Error` and `instanceof` do
 * not): the message, the stable code when there is one, and whether a retry could mend it.
 */
export interface Failure {
  message: string;
  /** A `StatecrewError`'s code, or the string `code` of another error. */
  code?: string;
  /** False for errors that no retry can mend (configuration, 401, unknown worker, …). */
  retryable: boolean;
  /** Structured facts about the failure (a `StatecrewError`'s `details`). */
  details?: unknown;
  /** A flow step's failure that a `failed(...)` trigger handles: the run went on. */
  handled?: boolean;
}

/**
 * One item's result in a map step's output (`flow.map`), in item order: the item, its id, how its
 * child run ended, and its output or its failure.
 */
export interface MapItemResult<O = unknown> {
  item: unknown;
  /** The item's id (`itemId(item, index)`, else its index): its child run is `<parent id>/<node id>/<itemId>`. */
  itemId: string;
  status: 'completed' | 'failed';
  /** A crew item's `CrewOutput`, a flow item's `FlowOutput.output`, a function item's return value. */
  output?: O;
  /** Why the item failed (after its retries). */
  error?: Failure;
}

/** The lifecycle states of a node (a task run or a flow step run). */
export type NodeStatus = 'idle' | 'ready' | 'running' | 'waiting' | 'completed' | 'failed' | 'blocked';

/** The outcome of a whole run. */
export type RunStatus = 'completed' | 'partial' | 'failed';

/** The output of one completed task. */
export interface TaskOutput {
  name: string;
  /** The description after interpolation. */
  description: string;
  expectedOutput: string;
  /** The role of the agent that produced it. */
  agent: string;
  raw: string;
  /** The parsed value, when the task has an `outputSchema`. */
  structured?: unknown;
}

/** A record of one tool call made during a node's run. */
export interface ToolCallRecord {
  tool: string;
  args: unknown;
  result?: string;
  error?: string;
  /** Who called it, when not the node's own agent: a coworker's role, in a delegation. */
  agent?: string;
  /**
   * Why the call was refused without running, when it was: `repeated_call` (the same arguments a third
   * time), `unknown_coworker`, `delegation_depth`, `delegation_loop`, `approval_refused`.
   */
  code?: string;
}

/**
 * One hand-over of work between agents, in the order they were asked: a hierarchical manager's
 * allocation of a task (`allocate`), or an agent's `delegate_work` / `ask_question` call to a coworker
 * while it runs node `nodeId` (`from` and `to` are roles; `role` is `to`; `task` is what was asked).
 */
export type Delegation =
  | { kind: 'allocate'; task: string; role: string }
  | { kind: 'delegate' | 'ask'; from: string; to: string; role: string; task: string; nodeId: string };

/**
 * One message between agents in a node's run, with its answer: an agent's `delegate_work` (`kind:
 * 'delegate'`) or `ask_question` (`'ask'`) call to coworker `to`, what it asked, and the reply or why
 * there was none. A call refused before it reached anyone carries the refusal's `code`
 * (`unknown_coworker`, `delegation_loop`, `delegation_depth`, `repeated_call`).
 */
export interface DelegationMessage {
  kind: 'delegate' | 'ask';
  /** The asking agent's role. */
  from: string;
  /** The coworker's role (a refused call: the coworker as the model named it). */
  to: string;
  /** The task or question. */
  task: string;
  /** What the asking agent shared with it. */
  context?: string;
  /** Hand-overs from the task's agent: 1 when the task's own agent asked. */
  depth?: number;
  /** Epoch ms when it was asked (or refused), and how long the coworker took to answer. */
  at: number;
  durationMs?: number;
  reply?: string;
  /** Why the coworker could not answer, or why the call was refused. */
  error?: string;
  code?: string;
}

/** A coworker's answer to a delegation while an agent ran node `nodeId`: its reply, or why it failed. */
export interface DelegationReplied {
  kind: 'delegate' | 'ask';
  nodeId: string;
  from: string;
  to: string;
  reply?: string;
  error?: string;
  durationMs: number;
}

/**
 * What a paused crew run waits for: a tool call to approve (`kind: 'approval'`; answer it by `callId`
 * in `crew.resume(id, { approvals })`) or a task's output to review (`kind: 'review'`; answer it by
 * `nodeId` in `crew.resume(id, { reviews })`).
 */
export type CrewPending =
  | { kind: 'approval'; nodeId: string; tool: string; args: unknown; callId: string; agent: string }
  | { kind: 'review'; nodeId: string; output: TaskOutput };

/**
 * What a node run waits for, as its `node.waiting` event tells: a tool call to approve, an output to
 * review, a human's answer to a flow step, an outside event, a wake time, or a crew a step kicked off
 * that waits itself. A wait is not a failure: the node run is `waiting`, and the run pauses (a sleep:
 * it goes on at its wake time).
 */
export type WaitingFor =
  | { kind: 'approval'; tool: string; args: unknown; callId: string; agent: string }
  | { kind: 'review'; output: TaskOutput }
  | { kind: 'human'; prompt: string; routes: string[]; timeoutAt?: number }
  | { kind: 'event'; event: string; timeoutAt?: number }
  | { kind: 'sleep'; wakeAt: number }
  | { kind: 'crew'; crew: string; executionId: string; pending: CrewPending[] }
  | { kind: 'flow'; flow: string; runId: string; path: string; timeoutAt?: number };

/** An answer to a tool call waiting for approval: run it, or refuse it with `feedback` for the model. */
export type ApprovalAnswer = { approve: true } | { approve: false; feedback?: string };

/** An answer to a task output waiting for review: accept it, or send `feedback` back for another attempt. */
export type ReviewAnswer = { approve: true } | { approve: false; feedback: string };

/** What the result tells about each node that ran. */
export interface NodeExecutionInfo {
  nodeId: string;
  name: string;
  /** Role of the agent that ran it. */
  agent: string;
  /** `paused`: it waits for a human (a tool call to approve, its output to review): see `pending`. */
  status: 'completed' | 'failed' | 'paused';
  /** Epoch milliseconds of the first attempt's start. */
  startedAt: number;
  /** From the first attempt's start to the node settling. */
  durationMs: number;
  attempts: number;
  usage: Usage;
  toolCalls: ToolCallRecord[];
  error?: string;
  /** The failure's stable code, when it has one. */
  errorCode?: string;
  /** The worker that held its last attempt's conversation, when a queue executor ran it. */
  worker?: string;
}

/** One line of the execution log: a node that completed, failed, or paused for a human. */
export interface ExecutionLogEntry {
  nodeId: string;
  status: 'completed' | 'failed' | 'paused';
  durationMs: number;
  error?: string;
}

/** Run-level facts; processes add their own keys. */
export interface CrewMetadata {
  executionId: string;
  process: string;
  /** Node ids whose values make up `output`. */
  leaves: string[];
  /** Node ids that never ran because something before them failed. */
  blocked: string[];
  /** With a store: the writes that failed (they never fail the run). */
  storeErrors?: StoreErrorRecord[];
  /** A resumed or replayed run: the node ids completed with results kept from the earlier run. */
  restored?: string[];
  /** A replay: the execution it started from. */
  replayOf?: string;
  /** A run on a thread (`kickoff({ thread })`): the thread. */
  thread?: string;
  /** A fork (`crew.fork`): the run and the checkpoint it was forked from. */
  forkedFrom?: RunLineage;
  /**
   * The `{identifier}` placeholders the run's inputs did not fill, and where each sits; absent when
   * every placeholder was filled (the run's `run.warning` event says the same).
   */
  missingInputs?: MissingInput[];
  /**
   * Keys of the crew's YAML files that statecrew read and ignored (`loadCrew`: keys CrewAI ignores
   * too, or reads for a feature statecrew does not have); absent when there are none. The run's
   * `run.warning` event says the same.
   */
  ignoredKeys?: IgnoredKey[];
  [key: string]: unknown;
}

/** A key of an agent or a task in a crew's YAML that `loadCrew` ignored, and where it is. */
export interface IgnoredKey {
  /** The file as `loadCrew` names it (`config/tasks.yaml`, or `tasks.yaml` for text). */
  file: string;
  /** The key's line, from 1. */
  line: number;
  /** Whether the key is an agent's or a task's. */
  kind: 'agent' | 'task';
  /** The agent's or task's name (its key in the file). */
  entry: string;
  /** The key ignored. */
  key: string;
  /** What the warning says of it: why it is ignored, or the known key it looks like a typo of. */
  message: string;
}

/**
 * Where an unfilled placeholder sits: a task's description, expected output or output file path (by
 * node id), an agent's persona (by its role, inputs filled), or the crew's goal (by the crew's name).
 */
export type MissingInputPlace =
  | { task: string; field: 'description' | 'expectedOutput' | 'outputFile' }
  | { agent: string; field: 'role' | 'goal' | 'backstory' }
  | { crew: string; field: 'goal' };

/** An `{identifier}` placeholder no input filled, and every place it sits. */
export interface MissingInput {
  /** The placeholder's name: `topic` for `{topic}`. */
  name: string;
  where: MissingInputPlace[];
}

/** A run's usage: the total, and apart what a hierarchical manager or a loop judge spent and what the workers did. */
export interface RunUsage extends Usage {
  manager: Usage;
  workers: Usage;
  /**
   * What each agent's own model calls spent, by role: a coworker's calls for a delegation count here
   * under its role (and in the delegating node's usage). A manager's and a judge's calls are not here.
   */
  agents: Record<string, Usage>;
}

/** A write to a run's store that failed: reported, never fatal to the run. */
export interface StoreErrorRecord {
  /** The collection written to (`crew_task_results`, `crew_executions`, `flow_runs`). */
  collection: string;
  key: string;
  error: string;
  code?: string;
}

/** The one result every process returns. */
export interface CrewOutput {
  /** The completed task latest in list order; hierarchical: the manager's synthesis. */
  raw: string;
  /** One executed leaf → its value; several → `{ [nodeId]: value }`; none → `{}`. */
  output: unknown;
  /** Completed tasks, in completion order. */
  tasksOutput: TaskOutput[];
  /** Every completed node's value (structured when it has one, else raw). */
  nodeResults: Record<string, unknown>;
  /** Completed and failed nodes, in the order they settled. */
  nodes: NodeExecutionInfo[];
  executionLog: ExecutionLogEntry[];
  /** `paused`: tool calls or task outputs wait for a human (`pending`; go on with `crew.resume`). */
  status: RunStatus | 'paused';
  /** What a paused run waits for (`status: 'paused'` only). */
  pending?: CrewPending[];
  /** nodeId → error message. */
  errors: Record<string, string>;
  /** nodeId → the failure with its code: the contract that survives JSON. */
  failures: Record<string, Failure>;
  /** Every model call of the run, each counted once; and the same split by who made it. */
  usage: RunUsage;
  managerCalls: number;
  /** Every hand-over of work between agents, in the order it was asked. */
  delegations: Delegation[];
  totalTimeMs: number;
  summary: string;
  metadata: CrewMetadata;
  /**
   * The output of the given task in this run (loop: of its last iteration): one of the crew's tasks,
   * or anything with the name of one.
   */
  outputOf(task: { readonly name: string | undefined }): TaskOutput | undefined;
}

/**
 * What one step of a paused flow run waits for, as its `flow.paused` event tells: a human's answer
 * (`kind: 'human'`) or outside event `event` (`kind: 'event'`), and when it times out.
 */
export interface WaitingStep {
  step: string;
  nodeId: string;
  /**
   * `crew`: a crew the step kicked off waits for approvals or reviews; `flow`: the child flow of a flow
   * step waits (for a human, an event or a crew of its own: `path` says where).
   */
  kind: 'human' | 'event' | 'crew' | 'flow';
  /** The event a wait step waits for (`kind: 'event'` only). */
  event?: string;
  /** The paused crew run (`kind: 'crew'` only). */
  executionId?: string;
  /** The paused child flow run (`kind: 'flow'` only): `<parent id>/<node id>`. */
  runId?: string;
  /** Where in the child flow it waits, from the parent's step: `review › approve` (`kind: 'flow'` only). */
  path?: string;
  /** When it times out, in epoch ms on the run's clock (a step with `timeoutMs`). */
  timeoutAt?: number;
}

interface EventBase {
  /** The run's execution id (a flow's: its state id). */
  runId: string;
  /** Epoch milliseconds, from the run's clock. */
  at: number;
  /**
   * Set on the events of a flow step: on a step run's own `node.*` events (`runId` is then the flow's
   * id), and on the events of a crew run inside the step (`runId` is then the crew's execution id).
   */
  step?: string;
}

/** Every event a run emits on `events$`. */
export type StatecrewEvent = EventBase &
  /** A run started: the first event of every run (and of every resumed segment). */
  (
    | {
        type: 'run.started';
        /** The crew's or flow's name (`crew.name`, `flow.name`). */
        name: string;
        /** The crew's process (`sequential`, `graph`, …), or `flow`. */
        process: string;
        /** How many nodes (task runs, or steps) its plan holds. */
        nodes: number;
      }
    /** A node (a task run, a flow step run) is ready to start. */
    | { type: 'node.ready'; nodeId: string }
    /** A node's attempt started. */
    | {
        type: 'node.started';
        nodeId: string;
        /** The task's name, or the step's. */
        name: string;
        /** The attempt, from 1. */
        attempt: number;
        /** The role of the agent that works on it ('' for a flow step). */
        agent: string;
        /** A task run's: what its agent is asked (persona and task lines) and the context it reads. */
        prompt?: string;
        context?: string;
      }
    /** A node completed, with its output; `attempts` it took, `durationMs` across them. */
    | { type: 'node.completed'; nodeId: string; attempts: number; durationMs: number; output: TaskOutput }
    /** A node's attempt failed: `willRetry` says whether another attempt follows. */
    | {
        type: 'node.failed';
        nodeId: string;
        attempt: number;
        durationMs: number;
        /** The failure's message. */
        error: string;
        /** A `StatecrewError`'s code, or a provider's error code. */
        code?: string;
        retryable: boolean;
        details?: unknown;
        willRetry: boolean;
      }
    /** A node's next attempt (`attempt`, from 2) starts after `delayMs`. */
    | { type: 'node.retrying'; nodeId: string; attempt: number; delayMs: number }
    /** A node run waits (`waiting`, not failed): for what, as `waitingFor` says. */
    | {
        type: 'node.waiting';
        nodeId: string;
        /** The attempt that waits; 0 for a flow step that waits without running (a human or wait step). */
        attempt: number;
        /** What it waits for: an approval, a review, a human's answer, an outside event, a wake time, a crew. */
        waitingFor: WaitingFor;
      }
    /** A node will never run: what it waited for failed (`reason` says why). */
    | { type: 'node.blocked'; nodeId: string; reason: string }
    /**
     * Work handed over: a manager's allocation (`kind: 'allocate'`), or an agent asking a coworker
     * (`delegate` / `ask`, while running `nodeId`, `depth` hand-overs deep from the task's agent).
     */
    | ({ type: 'delegation' } & Delegation & { depth?: number; context?: string })
    /** A coworker answered a delegation of node `nodeId` (or its conversation failed: `error`). */
    | ({ type: 'delegation.replied' } & DelegationReplied)
    /** A crew run paused: tool calls or task outputs wait for a human (`crew.resume`). */
    | { type: 'crew.paused'; pending: CrewPending[] }
    /** A hierarchical crew's manager was asked to allocate a task or to synthesize the outputs. */
    | { type: 'manager.call'; phase: 'allocate' | 'synthesize'; usage: Usage }
    /** A loop's judge answered after iteration `iteration`: `reply` as it said it. */
    | { type: 'judge.verdict'; iteration: number; verdict: 'yes' | 'no'; reply: string; usage: Usage }
    /** A model call of a node's attempt settled, with its usage (and what it threw, if it failed). */
    | {
        type: 'model.call';
        nodeId: string;
        attempt: number;
        usage: Usage;
        durationMs: number;
        /** Whose call it was, when not the node's own agent: a coworker's role, in a delegation. */
        agent?: string;
        /** Set when the call failed: what it threw. */
        error?: string;
        code?: string;
      }
    /** A tool call of a node's attempt settled: its arguments, result or error, and duration. */
    | { type: 'tool.call'; nodeId: string; call: ToolCallRecord }
    /**
     * A tool call still running reported how far it got (an MCP server's progress notification):
     * `progress` grows with each report; `total` when the tool knows it.
     */
    | ({ type: 'tool.progress'; nodeId: string; tool: string; callId: string; agent?: string } & ToolProgress)
    /** A flow step run started, is retried, completed or failed. */
    | {
        type: 'flow.step';
        /** The step's name. */
        name: string;
        nodeId: string;
        /** Which run of the step this is, from 1 (a step with `maxRuns` runs again). */
        run: number;
        /** `retrying`: an attempt failed and the step runs again after `delayMs` (its attempt `attempt`). */
        status: 'started' | 'retrying' | 'completed' | 'failed';
        /** On `completed`: what the step returned. */
        output?: unknown;
        /** On `retrying`: the attempt about to start, from 2, and the wait before it. */
        attempt?: number;
        delayMs?: number;
        error?: string;
        code?: string;
        /** On a failed step: whether a retry could mend the failure. */
        retryable?: boolean;
        details?: unknown;
        /** On a failed step: a `failed(...)` trigger handles it, so the run goes on. */
        handled?: boolean;
      }
    /** Router `router` chose route `label` (emitted after the router's name). */
    | { type: 'flow.route'; router: string; label: string }
    /** Round `round` of a flow run ended: the steps it ran, and the names it emitted. */
    | { type: 'flow.round'; round: number; steps: string[]; emitted: string[] }
    /**
     * A piece of text a streaming model produced for a node's attempt; `index` is its place in the
     * model's reply (0 for the reply's first piece), so a follower that came in later knows it missed
     * the reply's start.
     */
    | { type: 'model.delta'; nodeId: string; attempt: number; delta: string; index: number }
    /**
     * The run paused: these human and wait steps wait (`flow.resume`, `flow.signal`, or their
     * deadline); `waitingFor` says what each waits for and until when.
     */
    | { type: 'flow.paused'; waiting: string[]; waitingFor?: WaitingStep[] }
    /** A paused run was resumed with an answer to `step`. */
    | { type: 'flow.resumed'; step: string; route: string }
    /** A paused run went on: wait step `step` got the `event` it waited for (`flow.signal`). */
    | { type: 'flow.signaled'; step: string; event: string }
    /** A paused run went on: waiting step `step` timed out (its `onTimeout` label, or `step_timeout`). */
    | { type: 'flow.timed_out'; step: string }
    /** Sleep step `step` sleeps until `wakeAt` (epoch ms on the run's clock). */
    | { type: 'flow.sleeping'; step: string; nodeId: string; wakeAt: number }
    /**
     * An item of map step run `nodeId` started, is retried, completed or failed (`runId` is the
     * flow's; `childId` the item's child run). `done`, `failed` and `total` count the step run's items
     * once this one moved: progress without reading the store. An item a resume found finished is not
     * announced again.
     */
    | {
        type: 'flow.item';
        step: string;
        nodeId: string;
        itemId: string;
        index: number;
        status: 'started' | 'retrying' | 'completed' | 'failed';
        childId: string;
        attempt: number;
        done: number;
        failed: number;
        total: number;
        error?: string;
        code?: string;
      }
    /** A write to the run's store failed; the run goes on (see `metadata.storeErrors`). */
    | {
        type: 'store.error';
        /** The collection and key of the record whose write failed. */
        collection: string;
        key: string;
        error: string;
        /** The driver's code, when it gave one. */
        code?: string;
      }
    /**
     * Something about the run its caller should know, said once right after `run.started`:
     * `missing_input` — placeholders no input filled (`details.missingInputs`); `ignored_key` — keys
     * of the crew's YAML that `loadCrew` ignored (`details.ignoredKeys`).
     */
    | {
        type: 'run.warning';
        code: 'missing_input';
        message: string;
        details: { missingInputs: MissingInput[] };
      }
    | {
        type: 'run.warning';
        code: 'ignored_key';
        message: string;
        details: { ignoredKeys: IgnoredKey[] };
      }
    /** `paused`: a flow run that waits for a human (it goes on with `flow.resume`). */
    | { type: 'run.completed'; status: RunStatus | 'paused'; totalTimeMs: number }
    /** The run was rejected (a configuration error, an abort, a manager's or judge's failure, a store's). */
    | { type: 'run.failed'; error: string; code?: string }
    /**
     * The run was stopped gracefully (its process stopping) and kept `running` with no lease, for any
     * runner to resume from its last commit; `abandoned`: the nodes still in flight when the grace
     * period ended (they run again).
     */
    | { type: 'run.suspended'; reason: string; abandoned: string[] }
    /** A runner took over a stored run whose owner is gone (`previousOwner`: whose lease it was). */
    | { type: 'run.recovered'; kind: 'flow' | 'crew'; name: string; previousOwner: string | null }
    /** A runner leaves a stuck run alone: it holds no definition of that name (said once per run). */
    | { type: 'run.skipped'; kind: 'flow' | 'crew'; name: string; reason: string }
    /** A runner goes on with a paused flow run whose waiting steps' deadline passed: they time out. */
    | { type: 'run.deadline'; kind: 'flow'; name: string }
    /** A runner started a scheduled flow run for the schedule's tick (epoch ms). */
    | { type: 'run.scheduled'; kind: 'flow'; name: string; schedule: string; tick: number }
  );

/** The `type` of every event. */
export type StatecrewEventType = StatecrewEvent['type'];

/** How far a running tool call got, as the tool reports it (an MCP server's progress notification). */
export interface ToolProgress {
  /** Grows with each report of the call. */
  progress: number;
  /** What `progress` counts up to, when the tool knows it. */
  total?: number;
  /** What the tool is doing, in words. */
  message?: string;
}

/** What a tool gets besides its arguments. */
export interface ToolContext {
  /** Aborted when the run is cancelled or the attempt times out. */
  signal: AbortSignal;
  /** This call's id in the run (`<node id>.<attempt>.<model call>.<index>` in a crew's task run). */
  callId?: string;
  /**
   * The same for this call in every execution of its task run — each attempt, and a run again by
   * another process after a takeover or a crash — as long as the agent calls its tools as before:
   * `<task run's key>:<tool>#<n>`, the n-th call of this tool in the conversation (a coworker's calls
   * start with the delegating call's key). A tool runs at least once, so give it to the service it
   * changes to make the effect happen once. Set on every call a crew's task run makes.
   */
  idempotencyKey?: string;
  /** The run's execution memory, when the crew keeps one (`memory` on the crew): see `createResultsTool`. */
  memory?: AttemptMemory;
  /**
   * Reports how far this call got while it runs, as a `tool.progress` event of the run; set when the
   * conversation reports progress (a crew's task runs do).
   */
  onProgress?(progress: ToolProgress): void;
}

/** A function an agent's model may call. `parameters` (zod) validates the arguments first. */
export interface Tool<TArgs = unknown> {
  name: string;
  description: string;
  parameters?: import('zod').ZodType<TArgs>;
  /**
   * The arguments' JSON Schema as the model sees it, for a tool without a zod `parameters` (a tool an
   * MCP server describes): `execute` checks the arguments against it itself.
   */
  inputSchema?: Record<string, unknown>;
  execute(args: TArgs, context: ToolContext): unknown;
  /**
   * Whether a call waits for a human's approval before it runs: the crew run pauses (it needs a store)
   * until `crew.resume(id, { approvals })` answers it. A function decides per call. @default false
   */
  needsApproval?: boolean | ApprovalCheck<TArgs>;
}

/**
 * Something granted like a tool that yields tools once opened (an MCP server, `statecrew/mcp`): a run
 * opens it when a conversation first needs it, at most once per `key`, and closes the session when
 * the run settles.
 */
export interface ToolSource {
  readonly kind: 'tool-source';
  /** What it is called in messages (a server's name). */
  readonly name: string;
  /** Sources with the same key share one session in a run (a subset of a server shares its connection). */
  readonly key: object;
  /**
   * The source's own names of the tools this grant covers (`server.tools([...])`); unset: every tool
   * it allows. A conversation held on a worker is sent the source's name and these.
   */
  readonly subset?: readonly string[] | undefined;
  /** Opens a session: rejects (`mcp_unavailable`, …) when it cannot. */
  open(signal: AbortSignal): Promise<ToolSourceSession>;
  /** The same source granting only `names` (its own tool names), sharing its session. */
  tools?(names: readonly string[]): ToolSource;
  /** The tools of an open session that this source grants. */
  grant(session: ToolSourceSession): readonly Tool[];
}

/** An open {@link ToolSource}: its tools, until it is closed. */
export interface ToolSourceSession {
  readonly tools: readonly Tool[];
  /** Ends the session (a child process stops, a connection closes); never rejects. */
  close(): Promise<void>;
}

/**
 * Decides whether one call of a tool waits for approval (declared as a method so that a tool typed by
 * its arguments still counts as a `Tool`, as its `execute` does).
 */
export type ApprovalCheck<TArgs> = {
  check(args: TArgs, context: ToolContext): boolean | Promise<boolean>;
}['check'];

/** One completed task run as a run's execution memory keeps it. */
export interface MemoryEntry {
  nodeId: string;
  /** The task's name (a loop run's without its `#<iteration>`). */
  task: string;
  /** The role of the agent that produced it. */
  agent: string;
  /** A loop run's iteration (from 1); undefined outside loops. */
  iteration?: number;
  /** The run it is of, for an entry of an earlier run on the thread (`kickoff({ thread })`); absent for this run's. */
  runId?: string;
  raw: string;
  structured?: unknown;
}

/** Turns texts into vectors: an embedding model (`fromAiSdkEmbedding` in `statecrew/ai-sdk`, or your own). */
export interface EmbeddingModel {
  /**
   * One vector per text, in order; `usage.tokens` what it spent and `usage.calls` how many provider
   * calls it made (1 unless said), when the model says.
   */
  embed(
    texts: string[],
    options: { signal: AbortSignal },
  ): Promise<{ embeddings: number[][]; usage?: { tokens?: number; calls?: number } }>;
  /** What the model is, as a price table names it. */
  readonly id?: string;
}

/** What the results tool asks of a run's memory. */
export interface MemoryQuery {
  /** Ranked by meaning (with an embedding model). */
  query?: string | undefined;
  /** Only this task's results (every iteration of a loop task). */
  task?: string | undefined;
  /** The latest this many. @default topK */
  last?: number | undefined;
}

/** A run's memory as one attempt sees it: its lookups report their embedding calls as that attempt's. */
export interface AttemptMemory {
  entries(): MemoryEntry[];
  lookup(query: MemoryQuery, signal: AbortSignal): Promise<MemoryEntry[]>;
}

/**
 * What a guardrail may use besides the output: the attempt's signal, and a model to ask (its calls
 * count in the run's usage and budget like the agent's own, under the task's node).
 */
export interface GuardrailContext {
  /** Aborted when the run is cancelled or the attempt times out. */
  readonly signal: AbortSignal;
  /**
   * Asks a model one question and resolves with its answer: the task's agent's model unless `llm`
   * names another.
   */
  ask(question: string, options?: { llm?: Llm | undefined; system?: string | undefined }): Promise<string>;
}

/** Where a forked run came from: the run it was forked from and the checkpoint it kept up to. */
export interface RunLineage {
  runId: string;
  checkpoint: string;
}

/**
 * One committed checkpoint of a run: a task run of a crew, or a step run of a flow, as its records
 * keep it. Its `checkpoint` is its node id (unique in a run; a loop's `<task>#<iteration>`, a step's
 * later runs `<step>#<run>`), which `fork({ at })` takes (or its `seq`).
 */
export interface Checkpoint {
  /** What `fork({ at })` names: the node id. */
  checkpoint: string;
  /** Its place in the run's commit order, from 1 (a resumed run's commits go on counting). */
  seq: number;
  nodeId: string;
  /** A crew's task run, or a flow's step run. */
  kind: 'task' | 'step';
  /** The task's or the step's name (a loop's task without `#<iteration>`). */
  name: string;
  /** When it was committed, in epoch ms (the run's clock). */
  at: number;
  status: 'completed' | 'failed' | 'paused';
  /** The task's raw text (crews), or the step's output (flows); undefined when it has none. */
  output: unknown;
  /** A task's structured output, when it has an `outputSchema`. */
  structured?: unknown;
  /** Flows: the run's state once the step settled. */
  state?: unknown;
  /** A failed task run's error message and code. */
  error?: string;
  code?: string;
}

/** Which checkpoints `history` lists: one page, after a `seq`. */
export interface HistoryOptions {
  /** Only checkpoints after this `seq` (where the previous page ended). @default 0 */
  after?: number | undefined;
  /** At most this many checkpoints (a whole number from 1). @default every one */
  limit?: number | undefined;
}

/** A run's committed history: its head, and its checkpoints in commit order (one page of them). */
export interface RunHistory {
  id: string;
  kind: 'crew' | 'flow';
  /** The crew's or the flow's name. */
  name: string;
  /** The stored run's status (`interrupted` for a crew run whose process died before it had a head). */
  status: string;
  /** A fork: the run and checkpoint it was forked from. */
  forkedFrom?: RunLineage;
  /** The thread the run belongs to, if it was kicked off on one. */
  thread?: string;
  checkpoints: Checkpoint[];
  /** Pass as `after` for the next page; absent on the last page. */
  next?: number;
}

/** How one node differs between two runs (see `diffRuns`). */
export interface NodeDiff {
  nodeId: string;
  /** `added`: only in the second run; `removed`: only in the first; `changed`: in both, different. */
  change: 'added' | 'removed' | 'changed';
  /** What differs, for a `changed` node. */
  fields: ('status' | 'output' | 'state')[];
  /** The node in each run (absent from the run that does not have it). */
  a?: Checkpoint;
  b?: Checkpoint;
}

/** What `diffRuns(a, b)` tells: the path each run took, and each node that differs. */
export interface RunDiff {
  a: string;
  b: string;
  /** Nothing differs: the same path, statuses, outputs and states. */
  same: boolean;
  path: {
    /** Each run's checkpoints in commit order. */
    a: string[];
    b: string[];
    same: boolean;
    /** The index in the paths where they first part (absent when they are the same). */
    divergesAt?: number;
  };
  /** The nodes that differ, in the first run's order, then those only the second has. */
  nodes: NodeDiff[];
}
