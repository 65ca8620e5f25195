import type { BudgetExceededError } from '../errors.js';
import { addUsage, emptyUsage } from '../models/usage.js';
import { type Budget, guardBudget } from '../runtime/engine/budget.js';
import type { Usage } from '../types.js';

/**
 * What a whole evaluation spent on model calls — its runs' and its scorers' together — against its
 * budget: once spent, no case starts and no judge call is let through.
 */
export class EvalSpend {
  readonly spent: Usage = emptyUsage();
  readonly #budget: Budget | undefined;

  constructor(budget: Budget | undefined) {
    this.#budget = budget;
  }

  /** Counts `usage` as spent. */
  add(usage: Usage): void {
    addUsage(this.spent, usage);
  }

  /** The `budget_exceeded` error when the budget is spent, else undefined. */
  exceeded(): BudgetExceededError | undefined {
    if (this.#budget === undefined) return undefined;
    try {
      guardBudget(this.#budget, this.spent);
      return undefined;
    } catch (error) {
      return error as BudgetExceededError;
    }
  }

  /** Throws `budget_exceeded` when the budget is spent. */
  guard(): void {
    const error = this.exceeded();
    if (error !== undefined) throw error;
  }

  /**
   * What one crew run may spend: what is left of the evaluation's budget, within the crew's own
   * budget (`own`); `own` as it is without an evaluation budget. Call it when the budget is not spent.
   */
  remainingFor(own: Budget | undefined): Budget | undefined {
    const budget = this.#budget;
    if (budget === undefined) return own;
    const left = (limit: number | undefined, spent: number, mine: number | undefined) => {
      if (limit === undefined) return mine;
      const rest = limit - spent;
      return mine === undefined ? rest : Math.min(rest, mine);
    };
    const maxTokens = left(budget.maxTokens, this.spent.totalTokens, own?.maxTokens);
    const maxCostUsd = left(budget.maxCostUsd, this.spent.costUsd ?? 0, own?.maxCostUsd);
    return {
      ...(maxTokens === undefined ? {} : { maxTokens }),
      ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    };
  }
}
