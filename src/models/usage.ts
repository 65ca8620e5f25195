import type { ModelPrice, ModelUsage, Usage } from '../types.js';

/** A usage of zero tokens and zero calls. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 };
}

/** The usage of one model call that failed: no tokens reported, one call made (a run's usage counts it). */
export function failedCallUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 1 };
}

/** The usage of one model call from what the model reported (missing counts are 0). */
export function usageOfCall(reported: ModelUsage | undefined): Usage {
  const inputTokens = reported?.inputTokens ?? 0;
  const outputTokens = reported?.outputTokens ?? 0;
  const usage: Usage = { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, calls: 1 };
  if (reported?.costUsd !== undefined) usage.costUsd = reported.costUsd;
  return usage;
}

/** Adds `more` into `into` (mutating it) and returns it. */
export function addUsage(into: Usage, more: Usage): Usage {
  into.inputTokens += more.inputTokens;
  into.outputTokens += more.outputTokens;
  into.totalTokens += more.totalTokens;
  into.calls += more.calls;
  if (more.costUsd !== undefined) into.costUsd = (into.costUsd ?? 0) + more.costUsd;
  return into;
}

/** A call's usage with its cost from `price` when the model reported none. */
export function pricedUsage(usage: Usage, price: ModelPrice | undefined): Usage {
  if (price === undefined || usage.costUsd !== undefined) return usage;
  usage.costUsd =
    (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1_000_000;
  return usage;
}
