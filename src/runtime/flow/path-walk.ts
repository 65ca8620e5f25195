import { completes } from '../../machines/flow/outcomes.js';
import type { StepShape } from '../../machines/flow/step-shape.js';
import type { AbstractGraph, AbstractNode } from './abstraction.js';
import type { FlowStepRun, PathTemplate } from './composed-paths.js';

/** The routes of a path: each router's label, or its labels in order when it ran more than once. */
function routesOf(labels: readonly [string, string][]): Record<string, string | string[]> {
  const routes: Record<string, string | string[]> = {};
  for (const [router, label] of labels) {
    const seen = routes[router];
    routes[router] = seen === undefined ? label : [...(Array.isArray(seen) ? seen : [seen]), label];
  }
  return routes;
}

/** A state on the path being walked: the edge to try next, and the trail, labels and flow step runs before its round. */
interface PathFrame {
  key: string;
  node: AbstractNode;
  next: number;
  trailAt: number;
  labelsAt: number;
  runsAt: number;
  /** The steps of its round that choose an outcome, whose outcomes each edge chooses. */
  routers: string[];
  /** The steps of its round. */
  round: StepShape[];
}

/** What a walk reads of the flow's steps: each by name, which choose an outcome, whose failure is handled. */
export interface WalkSteps {
  byName: ReadonlyMap<string, StepShape>;
  routers: ReadonlySet<string>;
  handled: ReadonlySet<string>;
}

/**
 * Lists paths from the initial state to an end, depth first, at most `limit` (never entering a state
 * already on the path). The trail and labels are one stack shared by every path and copied only when
 * a path ends, so the walk costs the edges it follows plus the paths it lists — not, as copying them
 * at every state would, the trail's length at every state (quadratic on a chain). Each path keeps the
 * runs of its flow steps, for their children's paths to be composed into it.
 */
export class PathWalk {
  readonly found: (PathTemplate & { end: string })[] = [];
  truncated = false;
  readonly #trail: string[] = [];
  readonly #labels: [string, string][] = [];
  readonly #runs: FlowStepRun[] = [];
  readonly #onPath = new Set<string>();
  readonly #stack: PathFrame[] = [];

  readonly #graph: AbstractGraph;
  readonly #steps: WalkSteps;
  readonly #limit: number;

  constructor(graph: AbstractGraph, steps: WalkSteps, limit: number) {
    this.#graph = graph;
    this.#steps = steps;
    this.#limit = limit;
  }

  run(): this {
    this.#enter(this.#graph.initial);
    while (this.#stack.length > 0 && !this.truncated) {
      const top = this.#stack[this.#stack.length - 1] as PathFrame;
      this.#trail.length = top.trailAt;
      this.#labels.length = top.labelsAt;
      this.#runs.length = top.runsAt;
      const edge = top.node.edges[top.next];
      if (edge === undefined) {
        this.#stack.pop();
        this.#onPath.delete(top.key);
        continue;
      }
      top.next += 1;
      if (this.#onPath.has(edge.to)) continue;
      for (const router of top.routers) this.#labels.push([router, edge.event.labels[router] as string]);
      this.#settle(top.round, edge.event.labels);
      this.#enter(edge.to);
    }
    return this;
  }

  /** The round's steps settle with `labels`: those that complete join the trail (a handled failure does not). */
  #settle(round: readonly StepShape[], labels: Readonly<Record<string, string>>): void {
    for (const step of round) {
      const label = labels[step.name];
      if (step.kind === 'flow') {
        const outcome = completes(step, label) ? 'completed' : 'failed';
        const handled = this.#steps.handled.has(step.name);
        this.#runs.push({ step: step.name, at: this.#trail.length, outcome, handled });
      }
      if (completes(step, label)) this.#trail.push(step.name);
    }
  }

  /** Ends a path at `key` if it is an end (or marks the walk truncated past the limit), else walks into it. */
  #enter(key: string): void {
    const node = this.#graph.nodes.get(key);
    if (node === undefined) return;
    if (node.snapshot.status === 'done') {
      if (this.found.length >= this.#limit) this.truncated = true;
      else {
        const outcome = node.snapshot.value === 'failed' ? 'failed' : 'completed';
        this.found.push({
          path: { routes: routesOf(this.#labels), trail: [...this.#trail], outcome },
          runs: [...this.#runs],
          end: key,
        });
      }
      return;
    }
    const routers: string[] = [];
    const round: StepShape[] = [];
    for (const { step: name } of node.snapshot.context.flow.scheduled) {
      round.push(this.#steps.byName.get(name) as StepShape);
      if (this.#steps.routers.has(name)) routers.push(name);
    }
    this.#stack.push({
      key,
      node,
      next: 0,
      trailAt: this.#trail.length,
      labelsAt: this.#labels.length,
      runsAt: this.#runs.length,
      routers,
      round,
    });
    this.#onPath.add(key);
  }
}
