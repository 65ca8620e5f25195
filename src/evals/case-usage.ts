import { addUsage, emptyUsage } from '../models/usage.js';
import type { StatecrewEvent, Usage } from '../types.js';
import type { EvalUsage } from './types.js';

/** A usage's counts alone (a crew's `RunUsage` without its split by who spent it). */
export function usageCopy(usage: Usage): Usage {
  const copy: Usage = {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.totalTokens,
    calls: usage.calls,
  };
  if (usage.costUsd !== undefined) copy.costUsd = usage.costUsd;
  return copy;
}

/** The usage of a case whose run spent `run`, its judges nothing yet. */
export function caseUsage(run: Usage = emptyUsage()): EvalUsage {
  return { ...usageCopy(run), judge: emptyUsage() };
}

/** Counts what a scorer's judge spent in `usage`: in `judge`, and in the totals. */
export function addJudgeUsage(usage: EvalUsage, spent: Usage): void {
  addUsage(usage.judge, spent);
  addUsage(usage, spent);
}

/** Adds `more` (its judge part too) into `into`. */
export function addEvalUsage(into: EvalUsage, more: EvalUsage): void {
  addUsage(into, more);
  addUsage(into.judge, more.judge);
}

/**
 * What a model call in a flow's events spent: a crew's (inside a step, a child flow or a map item,
 * relayed tagged with the step) `model.call`, `manager.call` or loop judge's `judge.verdict`.
 */
export function eventUsage(event: StatecrewEvent): Usage | undefined {
  if (event.type === 'model.call' || event.type === 'manager.call' || event.type === 'judge.verdict') {
    return event.usage;
  }
  return undefined;
}
