import type { CrewProcess } from '../process.js';
import type { CrewPlan, PlannedTask, PlanSource } from './plan.js';
import { planCrew } from './plan.js';
import type { Task } from './task.js';

/**
 * The one plan of a crew none of whose texts has a placeholder: every run's plan is then the same but
 * for its inputs. It is made once and reused while each task's `context` list holds the same tasks it
 * was made from (a list replaced or changed in place makes it again), checked in one pass over the
 * lists: a kickoff of a crew of 100,000 tasks then neither resolves nor allocates them all again.
 */
class PlanCache {
  #plan: CrewPlan | undefined;
  /** Each task's `context` list as planned, its length, and its tasks one after another. */
  #lists: (readonly Task[] | undefined)[] = [];
  #lengths: Int32Array = new Int32Array(0);
  #members: Task[] = [];

  plan(crew: PlanSource, inputs: Readonly<Record<string, unknown>>): CrewPlan {
    if (this.#plan === undefined || this.#changed(crew.tasks)) {
      this.#plan = planCrew(crew, {});
      this.#remember(crew.tasks);
    }
    return { ...this.#plan, inputs };
  }

  #remember(tasks: readonly Task[]): void {
    this.#lists = tasks.map((t) => t.context);
    this.#lengths = Int32Array.from(tasks, (t) => t.context?.length ?? -1);
    this.#members = tasks.flatMap((t) => t.context ?? []);
  }

  #changed(tasks: readonly Task[]): boolean {
    if (tasks.length !== this.#lists.length) return true;
    let at = 0;
    for (let i = 0; i < tasks.length; i += 1) {
      const list = (tasks[i] as Task).context;
      if (list !== this.#lists[i] || (list?.length ?? -1) !== this.#lengths[i]) return true;
      if (list === undefined) continue;
      for (const member of list) {
        if (member !== this.#members[at]) return true;
        at += 1;
      }
    }
    return false;
  }
}

const caches = new WeakMap<PlanSource, PlanCache>();

/**
 * The plan of a run of `crew` with `inputs`: made anew when `inputFree` is false (its texts take the
 * inputs), else the crew's one plan, reused while its tasks' context lists stay as they were.
 */
export function planRun(
  crew: PlanSource,
  inputs: Readonly<Record<string, unknown>>,
  inputFree: boolean,
): CrewPlan {
  if (!inputFree) return planCrew(crew, inputs);
  let cache = caches.get(crew);
  if (cache === undefined) {
    cache = new PlanCache();
    caches.set(crew, cache);
  }
  return cache.plan(crew, inputs);
}

/** The processes each plan's tasks were checked under, without error (a reused plan is checked once). */
const validated = new WeakMap<readonly PlannedTask[], Set<string>>();

/** Checks a run's plan under `process` (its `validate`), once per plan that runs share. */
export function validatePlan(process: Pick<CrewProcess, 'kind' | 'validate'>, plan: CrewPlan): void {
  const kinds = validated.get(plan.tasks);
  if (kinds?.has(process.kind)) return;
  process.validate(plan);
  if (kinds === undefined) validated.set(plan.tasks, new Set([process.kind]));
  else kinds.add(process.kind);
}
