export type { ManagerFunctions } from './actors/manager.js';
export {
  ContextInParallelError,
  ContextOrderError,
  CycleError,
  DuplicateRoleError,
  DuplicateTaskError,
  GuardrailError,
  InvalidOptionError,
  JudgeError,
  MaxIterationsError,
  MissingAgentError,
  MissingManagerError,
  ModelResponseError,
  OutputValidationError,
  ScriptExhaustedError,
  StatecrewError,
  type StatecrewErrorOptions,
  TaskTimeoutError,
  UnknownContextTaskError,
  UnknownWorkerError,
} from './errors.js';
export {
  type LifecycleContext,
  type LifecycleEmitted,
  type LifecycleEvent,
  type LifecycleInput,
  lifecycleMachine,
  type NodeFailure,
  type WorkInput,
  type WorkOutcome,
} from './machines/lifecycle.js';
export { Agent, type AgentOptions } from './runtime/agent.js';
export { Crew, type CrewOptions, type Manager } from './runtime/crew.js';
export type { CrewRun, RunOptions } from './runtime/crew-run.js';
export { interpolate } from './runtime/interpolate.js';
export type { LoopOptions, ProcessKind } from './runtime/process.js';
export { type Guardrail, Task, type TaskOptions } from './runtime/task.js';
export type {
  CrewMetadata,
  CrewOutput,
  ExecutionLogEntry,
  Llm,
  Model,
  ModelMessage,
  ModelRequest,
  ModelResponse,
  ModelUsage,
  NodeExecutionInfo,
  NodeStatus,
  Policy,
  RunStatus,
  StatecrewEvent,
  StatecrewEventType,
  TaskOutput,
  Tool,
  ToolCall,
  ToolCallRecord,
  ToolContext,
  ToolSpec,
  Usage,
} from './types.js';
