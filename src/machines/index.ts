/**
 * `statecrew/machines`: the pure XState machines a run is made of — a node run's lifecycle, one
 * supervisor per crew process, and a flow's machine — for those who inspect, draw or prove them
 * (Stately, `@xstate/graph`). Each takes the effects it calls in its `input`; nothing here does I/O.
 *
 * @example
 * import { getAdjacencyMap } from '@xstate/graph';
 * import { lifecycleMachine } from 'statecrew/machines';
 * const map = getAdjacencyMap(lifecycleMachine, { events: [{ type: 'READY' }], input });
 */
export {
  createFlowMachine,
  type FlowContext,
  type FlowEffects,
  type FlowEvent,
  type FlowMachine,
  type FlowMachineInput,
  type FlowMachineOutput,
  NO_FLOW_EFFECTS,
} from './flow/flow-machine.js';
export { type GraphEffects, graphMachine } from './graph.js';
export { type HierarchicalEffects, hierarchicalMachine } from './hierarchical.js';
export {
  type AbortEvent,
  type AttemptOutcome,
  type LifecycleContext,
  type LifecycleEffects,
  type LifecycleEmitted,
  type LifecycleEvent,
  type LifecycleInput,
  lifecycleMachine,
  type NodeFailure,
  type NodeSettledEvent,
  type NodeWait,
  startedLifecycleMachine,
  type WaitOutcome,
  type WorkOutcome,
  type WorkRequest,
} from './lifecycle.js';
export { type LoopEffects, loopMachine } from './loop.js';
export { type ParallelEffects, parallelMachine } from './parallel.js';
export { type SequentialEffects, sequentialMachine } from './sequential.js';
