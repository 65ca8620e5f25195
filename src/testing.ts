export {
  createScriptedModel,
  type RecordedRequest,
  type Script,
  type ScriptedModel,
  type ScriptedReply,
  scriptedModel,
} from './models/scripted.js';
export { createManualClock, type ManualClock, manualClock } from './runtime/engine/manual-clock.js';
export {
  expectRouteCoverage,
  forEachPath,
  type PathRun,
  type RouteCoverage,
  routeCoverage,
} from './runtime/flow/coverage.js';
