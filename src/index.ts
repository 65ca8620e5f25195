export type {
  AgentRegistry,
  ConversationExecutor,
  ConversationJob,
  ConversationOutcome,
  ConversationProgress,
} from './actors/conversation-job.js';
export type { ManagerFunctions } from './actors/manager.js';
export {
  AnalysisLimitError,
  AnswerRequiredError,
  BudgetExceededError,
  CassetteMissError,
  CheckpointNotFoundError,
  ConfigError,
  ContextInParallelError,
  ContextOrderError,
  CorruptSnapshotError,
  CrewNotPickedError,
  CycleError,
  DeadlinePassedError,
  DuplicateRoleError,
  DuplicateStepError,
  DuplicateTaskError,
  EvalNotFoundError,
  type FileLine,
  FlowMismatchError,
  ForcedFailureError,
  GuardrailError,
  GuardrailFailedError,
  IdempotencyKeyReusedError,
  InternalError,
  InvalidDatasetError,
  InvalidInputsError,
  InvalidMapItemsError,
  InvalidOptionError,
  InvalidReportError,
  InvalidRequestError,
  InvalidStateError,
  isStatecrewError,
  JudgeCallError,
  JudgeError,
  LeaseLostError,
  ManagerError,
  MapItemFailedError,
  MaxIterationsError,
  MaxRunsError,
  McpResultTooLargeError,
  McpUnavailableError,
  MissingAgentError,
  MissingDependencyError,
  MissingInputError,
  MissingManagerError,
  MissingRoutesError,
  ModelResponseError,
  NameClashError,
  NoStartError,
  NotPausedError,
  NotRunningError,
  NoWaiterError,
  OutputFileError,
  OutputValidationError,
  PayloadTooLargeError,
  QueueUnavailableError,
  type RequestIssue,
  ReviewRejectedError,
  RouteCoverageError,
  RunAbortedError,
  RunExistsError,
  RunLockedError,
  RunNotFoundError,
  RunSuspendedError,
  ScorerFailedError,
  ScriptExhaustedError,
  SelfTriggerError,
  SnapshotVersionError,
  StatecrewError,
  type StatecrewErrorCode,
  type StatecrewErrorOptions,
  StepTimeoutError,
  StoreClosedError,
  StoreRequiredError,
  StoreUnavailableError,
  SubflowFailedError,
  TaskTimeoutError,
  ThreadBusyError,
  UnauthorizedError,
  UnknownAgentError,
  UnknownCommandTargetError,
  UnknownContextTaskError,
  UnknownDefinitionError,
  UnknownEndpointError,
  UnknownMcpServerError,
  UnknownProviderError,
  UnknownRouteError,
  UnknownRouterError,
  UnknownToolError,
  UnknownTriggerError,
  UnknownWorkerError,
} from './errors.js';
export {
  type CaseScore,
  type CompareOptions,
  type Covered,
  type CrewaiTestScorerOptions,
  compareEvals,
  coverageOf,
  crewaiTable,
  crewaiTestScorer,
  type Dataset,
  type EvalCase,
  type EvalCaseResult,
  type EvalComparison,
  type EvalCoverage,
  type EvalReport,
  type EvalReportHead,
  type EvalSummary,
  type EvalUsage,
  type EvaluateOptions,
  evaluate,
  exactMatch,
  formatComparison,
  formatCoverage,
  formatReport,
  includes,
  type LlmJudgeOptions,
  listEvalReports,
  llmJudge,
  loadDataset,
  matchesSchema,
  parseEvalReport,
  type RegressedCase,
  type RunPath,
  readEvalReport,
  readEvalReportFile,
  regex,
  type Score,
  type ScoreInput,
  type ScoreLevel,
  type Scorer,
  type ScorerDelta,
  type ScorerLike,
  type ScorerOptions,
  type ScorerSummary,
  type SimilarityOptions,
  saveEvalReport,
  similarity,
  type TextScorerOptions,
  toScorer,
} from './evals/index.js';
export { and, failed, or, type Trigger, type TriggerGate } from './machines/flow/triggers.js';
export type {
  PendingCrew,
  PendingEvent,
  PendingHuman,
  PendingStep,
  SnapshotRound,
} from './machines/flow/waits.js';
export type { NodeFailure } from './machines/lifecycle.js';
export { defineTool, type ToolDefinition } from './models/define-tool.js';
export { type ProviderFactory, ProviderModel, registerProvider } from './models/providers.js';
export {
  type CassetteMode,
  createRecordReplay,
  type RecordReplayOptions,
} from './models/record-replay.js';
export { createResultsTool } from './models/results-tool.js';
export { Agent } from './runtime/crew/agent.js';
export type { AgentOptions } from './runtime/crew/agent-options.js';
export { Crew } from './runtime/crew/crew.js';
export type { CrewForkOptions, CrewHistoryOptions } from './runtime/crew/crew-fork-options.js';
export type { CrewOptions, Manager } from './runtime/crew/crew-options.js';
export type { CrewAnalysis, CrewPath } from './runtime/crew/crew-picture.js';
export type { StoredCrewExecution, StoredTaskResult } from './runtime/crew/crew-store.js';
export {
  ExecutionDocument,
  type ExecutionDocumentData,
  type ExecutionResult,
  type ExecutionStatus,
} from './runtime/crew/execution-document.js';
export { interpolate } from './runtime/crew/interpolate.js';
export type { MemoryOptions } from './runtime/crew/memory.js';
export {
  type ModelGuardrailOptions,
  modelGuardrail,
} from './runtime/crew/model-guardrail.js';
export type { OutputFiles } from './runtime/crew/output-file.js';
export type {
  CrewResumeOptions,
  CrewRun,
  KickoffForEachOptions,
  ReplayOptions,
  RunOptions,
} from './runtime/crew/run-options.js';
export type { SummarizeOptions } from './runtime/crew/summary.js';
export type { Guardrail, GuardrailVerdict, TaskOptions } from './runtime/crew/task.js';
export { Task } from './runtime/crew/task.js';
export { type ReadEventsOptions, readEvents, type StoredEvent } from './runtime/durable/event-record.js';
export {
  type FollowEventsOptions,
  type FollowedEvent,
  followEvents,
} from './runtime/durable/follow-events.js';
export { DEFAULT_SHUTDOWN_GRACE_MS, GracefulStop } from './runtime/durable/graceful-stop.js';
export { DEFAULT_LEASE_MS } from './runtime/durable/run-owner.js';
export { createRunner, type RecoveryReport, type Runner } from './runtime/durable/runner.js';
export type {
  RecoverableCrew,
  RecoverableFlow,
  RecoveryOptions,
  RunnerOptions,
} from './runtime/durable/runner-options.js';
export type { FlowSchedule, ScheduledKickoff } from './runtime/durable/schedules.js';
export type { Budget } from './runtime/engine/budget.js';
export { type Clock, type ClockOption, systemClock } from './runtime/engine/clock.js';
export type { PlainMachine, PlainStateConfig } from './runtime/engine/plain-machine.js';
export type { AnalyzeOptions, FlowAnalysis, FlowPath } from './runtime/flow/analysis.js';
export type {
  MapItemContext,
  MapOptions,
  MapRun,
  SubflowOptions,
} from './runtime/flow/compose-options.js';
export type { CrewAnswerInput } from './runtime/flow/crew-steps.js';
export type { HumanPromptContext, RouterFn, StepContext, StepFn } from './runtime/flow/definition.js';
export { createFlow, Flow } from './runtime/flow/flow.js';
export type { FlowForkOptions, FlowHistoryOptions } from './runtime/flow/flow-fork-options.js';
export type { FlowSettings, FreeFlowOptions, StructuredFlowOptions } from './runtime/flow/flow-options.js';
export type { FlowOutput, FlowRun } from './runtime/flow/flow-output.js';
export type { HumanAnswerInput } from './runtime/flow/flow-resume.js';
export type { FlowResumeOptions, FlowRunOptions } from './runtime/flow/flow-run-options.js';
export type {
  FlowRunInfo,
  FlowRunStatus,
  FlowSnapshot,
  SnapshotStepRun,
} from './runtime/flow/snapshot.js';
export type { WithId } from './runtime/flow/state.js';
export type {
  HumanOptions,
  ListenOptions,
  RouterOptions,
  SleepOptions,
  StepOptions,
  WaitOptions,
} from './runtime/flow/step-options.js';
export { diffRuns } from './runtime/history/diff.js';
export { readHistory } from './runtime/history/history.js';
export type { LoopOptions } from './runtime/process.js';
export type { ProcessKind } from './runtime/processes/registry.js';
export type { StoreErrorPolicy } from './runtime/run/run-commits.js';
export type { Durability } from './stores/durability.js';
export { MemoryStore } from './stores/memory.js';
export { SqliteStore, type SqliteStoreOptions } from './stores/sqlite.js';
export {
  type JsonValue,
  type PruneOptions,
  type PruneResult,
  pruneStore,
  type RecordWrite,
  type RunClaim,
  type RunCommit,
  type RunFilter,
  type RunHead,
  type RunKind,
  type RunLease,
  type RunPageFilter,
  type RunPosition,
  SETTLED_RUN_STATUSES,
  STORE_COLLECTIONS,
  STORE_FORMAT_VERSION,
  STORED_RUN_STATUSES,
  type Store,
  type StoreCollection,
  type StoredRecord,
  type StoredRunStatus,
} from './stores/store.js';
export type {
  ApprovalAnswer,
  ApprovalCheck,
  AttemptMemory,
  Checkpoint,
  CrewMetadata,
  CrewOutput,
  CrewPending,
  Delegation,
  DelegationMessage,
  EmbeddingModel,
  ExecutionLogEntry,
  Failure,
  GuardrailContext,
  HistoryOptions,
  IgnoredKey,
  Llm,
  MapItemResult,
  MemoryEntry,
  MemoryQuery,
  MissingInput,
  MissingInputPlace,
  Model,
  ModelMessage,
  ModelPrice,
  ModelRequest,
  ModelResponse,
  ModelUsage,
  NodeDiff,
  NodeExecutionInfo,
  NodeStatus,
  Policy,
  PolicyOptions,
  ReviewAnswer,
  RunDiff,
  RunHistory,
  RunLineage,
  RunStatus,
  RunUsage,
  StatecrewEvent,
  StatecrewEventType,
  StoreErrorRecord,
  TaskOutput,
  Tool,
  ToolCall,
  ToolCallRecord,
  ToolContext,
  ToolProgress,
  ToolSource,
  ToolSourceSession,
  ToolSpec,
  Usage,
  WaitingStep,
} from './types.js';
export type { YamlAgentOptions, YamlCrewOptions, YamlTaskOptions } from './yaml/crew-code.js';
export { type LoadCrewOptions, loadCrew } from './yaml/load-crew.js';
