import type { CrewProcess } from '../process.js';
import type { CrewPlan, PlannedTask, PlanSource } from './plan.js';
import { planCrew } from './plan.js';
import type { Task } from './task.js';

/**
 * The one plan of a crew none of whose texts has a placeholder: every run's plan is then the same but
 * for its inputs. It is made once and reused while each task's `context` list holds the tasks it was
 * planned with (a list replaced or changed in place to hold others makes it again), checked in one
 * pass over the lists against the plan's own positions: a kickoff of a crew of 100,000 tasks then
 * neither resolves nor allocates them all again, and the plan keeps no second copy of the lists.
 */
class PlanCache {
  #plan: CrewPlan | undefined;

  plan(crew: PlanSource, inputs: Readonly<Record<string, unknown>>): CrewPlan {
    if (this.#plan === undefined || changed(crew.tasks, this.#plan.tasks)) this.#plan = planCrew(crew, {});
    return { ...this.#plan, inputs };
  }
}

/** Whether a task's `context` list no longer holds the tasks `planned` resolved it to. */
function changed(tasks: readonly Task[], planned: readonly PlannedTask[]): boolean {
  if (tasks.length !== planned.length) return true;
  for (let i = 0; i < tasks.length; i += 1) {
    const list = (tasks[i] as Task).context;
    const positions = (planned[i] as PlannedTask).contextPositions;
    if (list === undefined || positions === undefined) {
      if (list !== positions) return true;
      continue;
    }
    if (list.length !== positions.length) return true;
    for (let at = 0; at < list.length; at += 1) {
      if (list[at] !== tasks[positions[at] as number]) return true;
    }
  }
  return false;
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
