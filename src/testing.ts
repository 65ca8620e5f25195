export { type HeldText, holdText } from './models/held-text.js';
export {
  createScriptedModel,
  type RecordedRequest,
  type Script,
  type ScriptedModel,
  type ScriptedReply,
  type StreamedReply,
} from './models/scripted.js';
export { createManualClock, type ManualClock } from './runtime/engine/manual-clock.js';
export {
  type ChildRound,
  expectRouteCoverage,
  forEachPath,
  type PathRun,
  type RouteCoverage,
  routeCoverage,
} from './runtime/flow/coverage.js';
