export {
  type RecordedRequest,
  type Script,
  type ScriptedModel,
  type ScriptedReply,
  scriptedModel,
} from './models/scripted.js';
