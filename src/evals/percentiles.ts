/**
 * The `p`th percentile (0–100) of `values` by the nearest rank: the smallest value with at least `p`%
 * of the values at or below it. 0 for no value.
 *
 * @example
 * nearestRank([4, 1, 3, 2], 50); // 2
 */
export function nearestRank(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? 0;
}

/** The mean of `values`; 0 for none. */
export function meanOf(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length;
}
