import type { Tool } from '../../types.js';
import type { Agent } from './agent.js';
import type { Task } from './task.js';

/** What the facts are read from: a crew's definition. */
export interface FactSource {
  readonly tasks: readonly Task[];
  readonly agents: readonly Agent[];
  readonly goal: string;
  /** The summary node's agent, when the crew has one. */
  readonly summary?: { readonly agent: Agent } | undefined;
  nodeIdOf(task: Task): string | undefined;
}

/** Why a run of the crew could pause for a human, if it could. */
export type PauseReason = { kind: 'review'; nodeId: string } | { kind: 'approval'; tool: Tool } | undefined;

const braced = (text: string | undefined) => text?.includes('{') === true;

/**
 * What a crew's definition says once for all its runs — its tasks' agents, texts, tools and flags
 * never change after it is made — each found the first time a run asks, so a kickoff of a crew of
 * 100,000 tasks does not walk them all again for every check.
 */
export class CrewFacts {
  readonly #crew: FactSource;
  #agents: readonly Agent[] | undefined;
  #bracedTasks: readonly Task[] | undefined;
  #pause: { reason: PauseReason } | undefined;

  constructor(crew: FactSource) {
    this.#crew = crew;
  }

  /** Finds every fact now (a crew made ahead of its runs does so), so that no kickoff walks its tasks. */
  findAll(): this {
    void this.agents;
    void this.bracedTasks;
    void this.pauseReason;
    return this;
  }

  /** The crew's agents, then its tasks' agents that are not among them, each once, in order. */
  get agents(): readonly Agent[] {
    this.#agents ??= [...new Set([...this.#crew.agents, ...taskAgents(this.#crew.tasks)])];
    return this.#agents;
  }

  /** The tasks with a `{` in their description, expected output or output file path. */
  get bracedTasks(): readonly Task[] {
    this.#bracedTasks ??= this.#crew.tasks.filter(
      (t) => braced(t.description) || braced(t.expectedOutput) || braced(t.outputFile),
    );
    return this.#bracedTasks;
  }

  /** Whether no text a run fills from its inputs has a `{`: every run's plan is then the same. */
  get inputFree(): boolean {
    const personaBraced = (a: Agent) => braced(a.role) || braced(a.goal) || braced(a.backstory);
    return this.bracedTasks.length === 0 && !braced(this.#crew.goal) && !this.agents.some(personaBraced);
  }

  /** Whether any agent of the crew may delegate. */
  get delegates(): boolean {
    return this.agents.some((a) => a.allowDelegation);
  }

  /**
   * Why a run could pause for a human: the first task with `humanInput`, else the first tool that may
   * wait for approval — tasks' tools before agents' (the crew's, its tasks', its summarizer's).
   */
  get pauseReason(): PauseReason {
    this.#pause ??= { reason: this.#findPause() };
    return this.#pause.reason;
  }

  #findPause(): PauseReason {
    const crew = this.#crew;
    const review = crew.tasks.find((t) => t.humanInput);
    if (review !== undefined) return { kind: 'review', nodeId: crew.nodeIdOf(review) as string };
    let tool: Tool | undefined;
    for (const task of crew.tasks) {
      tool = task.tools.find(mayWait);
      if (tool !== undefined) return { kind: 'approval', tool };
    }
    const summarizer = crew.summary?.agent;
    for (const agent of summarizer === undefined ? this.agents : [...this.agents, summarizer]) {
      tool = agent.tools.find(mayWait);
      if (tool !== undefined) return { kind: 'approval', tool };
    }
    return undefined;
  }
}

/** The agents of `tasks`, each once, in the order they first appear. */
export function taskAgents(tasks: readonly Task[]): Agent[] {
  const agents = new Set<Agent>();
  let last: Agent | undefined;
  for (const { agent } of tasks) {
    // Big crews give one agent many tasks in a row: the set is asked once per change.
    if (agent !== undefined && agent !== last) agents.add(agent);
    last = agent;
  }
  return [...agents];
}

/** Whether a tool may wait for approval: its `needsApproval` is set and not `false`. */
function mayWait(tool: Tool): boolean {
  return tool.needsApproval !== undefined && tool.needsApproval !== false;
}

const known = new WeakMap<FactSource, CrewFacts>();

/** The facts of `crew`, found once per crew (a crew is a definition: its tasks and agents stay). */
export function factsOf(crew: FactSource): CrewFacts {
  let facts = known.get(crew);
  if (facts === undefined) {
    facts = new CrewFacts(crew);
    known.set(crew, facts);
  }
  return facts;
}
