import { describe, expect, it } from 'vitest';
import { meanOf, nearestRank } from '../../src/evals/percentiles.js';

describe('the summary’s percentiles', () => {
  it('takes the nearest rank: the smallest value with at least p% at or below it', () => {
    const times = [40, 10, 30, 20, 50, 60, 70, 80, 90, 100];
    expect(nearestRank(times, 50)).toBe(50);
    expect(nearestRank(times, 95)).toBe(100);
    expect(nearestRank([7], 95)).toBe(7);
    expect(nearestRank([3, 1, 2], 50)).toBe(2);
  });

  it('is 0 with no value, as the mean is', () => {
    expect(nearestRank([], 50)).toBe(0);
    expect(meanOf([])).toBe(0);
    expect(meanOf([1, 2])).toBe(1.5);
  });
});
