import { crewView } from './crew-view.js';
import { flowView } from './flow-view.js';

export type { CrewRunSource, CrewViewSource } from './crew-runs.js';
export type { FlowShape } from './flow-graph.js';
export type { FlowRunSource, FlowViewSource } from './flow-runs.js';
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

/** A crew's run as a {@link RunView}: its picture, with what a run's result or stored record tells. */
export const toCrewView: typeof crewView = crewView;
/** A flow's run as a {@link RunView}: its picture, with what a run's result or stored record tells. */
export const toFlowView: typeof flowView = flowView;
/** @deprecated Renamed {@link toCrewView}; this name is removed in the next release. */
const deprecatedCrewView: typeof crewView = crewView;
/** @deprecated Renamed {@link toFlowView}; this name is removed in the next release. */
const deprecatedFlowView: typeof flowView = flowView;

export { deprecatedCrewView as crewView, deprecatedFlowView as flowView };
