export type { CrewRunSource, CrewViewSource } from './crew-runs.js';
export { crewView } from './crew-view.js';
export type { FlowShape } from './flow-graph.js';
export type { FlowRunSource, FlowViewSource } from './flow-runs.js';
export { flowView } from './flow-view.js';
export { CONTENT_SECURITY_POLICY, renderRunView } from './html.js';
export {
  type RunView,
  type RunViewStatus,
  type TimelineEntry,
  VIEW_STATUSES,
  type ViewEdge,
  type ViewHuman,
  type ViewNode,
  type ViewNodeKind,
  type ViewRun,
  type ViewSpan,
  type ViewStatus,
  type ViewTotals,
} from './model.js';
export { writeRunView } from './write.js';
