import type { Covered } from './types.js';

/** Which of `all` are covered, in their order, and the ratio (1 when there is none). */
export function coveredOf(all: readonly string[], isCovered: (name: string) => boolean): Covered {
  const unique = [...new Set(all)];
  const covered = unique.filter((name) => isCovered(name));
  return {
    covered,
    uncovered: unique.filter((name) => !covered.includes(name)),
    ratio: unique.length === 0 ? 1 : covered.length / unique.length,
  };
}

/** Whether a step's choices (one label or a list) hold `label`. */
export function chose(choice: string | string[] | undefined, label: string): boolean {
  return choice === undefined ? false : [choice].flat().includes(label);
}
