import { toCrewView } from './crew-view.js';
import { toFlowView } from './flow-view.js';

export type { CrewRunSource, CrewViewSource } from './crew-runs.js';
export type { FlowShape } from './flow-graph.js';
export type { FlowRunSource, FlowViewSource } from './flow-runs.js';
export { CONTENT_SECURITY_POLICY, renderRunView } from './html.js';
export {
  type AgentLanes,
  type AgentSpan,
  MAP_ITEMS_SHOWN,
  type MessageState,
  type RunView,
  type RunViewStatus,
  type TimelineEntry,
  type TimelineMessage,
  VIEW_STATUSES,
  type ViewEdge,
  type ViewHuman,
  type ViewMap,
  type ViewMapCounts,
  type ViewMapItem,
  type ViewMessage,
  type ViewNode,
  type ViewNodeKind,
  type ViewRun,
  type ViewSleep,
  type ViewSpan,
  type ViewStatus,
  type ViewSubflow,
  type ViewSubflowStep,
  type ViewTotals,
  type ViewWait,
} from './model.js';
export type { RenderRunViewOptions } from './options.js';
export { writeRunView } from './write.js';

export { toCrewView, toFlowView };
