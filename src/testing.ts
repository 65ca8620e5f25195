export {
  createScriptedModel,
  type RecordedRequest,
  type Script,
  type ScriptedModel,
  type ScriptedReply,
} from './models/scripted.js';
export { createManualClock, type ManualClock } from './runtime/engine/manual-clock.js';
export {
  expectRouteCoverage,
  forEachPath,
  type PathRun,
  type RouteCoverage,
  routeCoverage,
} from './runtime/flow/coverage.js';
