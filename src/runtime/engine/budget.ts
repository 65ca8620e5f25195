import { BudgetExceededError, InvalidOptionError } from '../../errors.js';
import type { CallGate, ModelPrice, Usage } from '../../types.js';

export type { CallGate } from '../../types.js';

/**
 * What a run may spend on model calls. Once what it spent reaches a limit, no model call starts:
 * the task that would make it fails with `budget_exceeded` and the run ends `partial` with the work
 * done kept. (A call's cost is known only when it returns: the call that crosses a limit completes.)
 */
export interface Budget {
  /** Input and output tokens of every call, in total. */
  maxTokens?: number | undefined;
  /** The cost of every call, where the models report one (`usage.costUsd`). */
  maxCostUsd?: number | undefined;
}

/** Checks a budget option: each limit a positive number. */
export function checkBudget(where: string, budget: Budget | undefined): void {
  if (budget === undefined) return;
  if (typeof budget !== 'object' || budget === null) {
    throw new InvalidOptionError(where, 'budget', '{ maxTokens?, maxCostUsd? }', budget);
  }
  for (const key of ['maxTokens', 'maxCostUsd'] as const) {
    const value = budget[key];
    if (value !== undefined && !(typeof value === 'number' && value > 0)) {
      throw new InvalidOptionError(where, `budget.${key}`, 'a positive number', value);
    }
  }
}

/** Throws `budget_exceeded` when `spent` has reached a limit of `budget`. */
export function guardBudget(budget: Budget, spent: Usage): void {
  if (budget.maxTokens !== undefined && spent.totalTokens >= budget.maxTokens) {
    throw new BudgetExceededError('maxTokens', budget.maxTokens, spent.totalTokens);
  }
  if (budget.maxCostUsd !== undefined && (spent.costUsd ?? 0) >= budget.maxCostUsd) {
    throw new BudgetExceededError('maxCostUsd', budget.maxCostUsd, spent.costUsd ?? 0);
  }
}

/** Checks a price table: each entry `{ inputPerMTok, outputPerMTok }`, both numbers ≥ 0. */
export function checkPrices(where: string, prices: Readonly<Record<string, ModelPrice>> | undefined): void {
  if (prices === undefined) return;
  if (typeof prices !== 'object' || prices === null) {
    throw new InvalidOptionError(
      where,
      'prices',
      "{ 'provider:model': { inputPerMTok, outputPerMTok } }",
      prices,
    );
  }
  for (const [id, price] of Object.entries(prices)) {
    for (const key of ['inputPerMTok', 'outputPerMTok'] as const) {
      const value = (price as Partial<ModelPrice> | undefined)?.[key];
      if (!(typeof value === 'number' && value >= 0)) {
        throw new InvalidOptionError(where, `prices["${id}"].${key}`, 'a number ≥ 0', value);
      }
    }
  }
}

/** The gate of a run that may spend `budget` (measured on `spent`, the run's usage) at `prices`. */
export function callGate(
  budget: Budget | undefined,
  prices: Readonly<Record<string, ModelPrice>> | undefined,
  spent: Usage,
): CallGate {
  const gate: CallGate = {};
  if (budget !== undefined) gate.beforeCall = () => guardBudget(budget, spent);
  if (prices !== undefined) gate.priceOf = (id) => prices[id];
  return gate;
}
