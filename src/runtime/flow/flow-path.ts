/**
 * One path of a flow: the outcome of each step that chooses one (a router's label, a wait's name or
 * timeout label, `failed` for a handled failure; a list when it runs more than once), the steps that
 * complete, and how it ends. Through a flow step, the child's steps and choices are named by their
 * path — `review › draft` in `trail`, `'review › grade'` in `routes` — and its steps come before the
 * flow step's own name; `routes` is then what `kickoff({ routes })` forces, child choices included.
 */
export interface FlowPath {
  routes: Record<string, string | string[]>;
  trail: string[];
  outcome: 'completed' | 'failed';
}
