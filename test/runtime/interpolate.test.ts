import { describe, expect, it } from 'vitest';
import { interpolate } from '../../src/index.js';

describe('interpolate', () => {
  it('replaces known keys with String(value) and leaves everything else alone', () => {
    expect(interpolate('Research {topic} in {year} for {who}', { topic: 'AI', year: 2026, who: null })).toBe(
      'Research AI in 2026 for null',
    );
    expect(interpolate('Keep {unknown} and {topic}', { topic: 'x' })).toBe('Keep {unknown} and x');
    expect(interpolate('{"a": {topic}, "b": [1, 2]} {{topic}}', { topic: 1 })).toBe(
      '{"a": 1, "b": [1, 2]} {1}',
    );
    expect(interpolate('{ topic } {}', { topic: 'no', ' topic ': 'spaced' })).toBe('spaced {}');
  });

  it('never reads inherited keys and does not re-expand what it inserted', () => {
    expect(interpolate('{toString} {constructor}', {})).toBe('{toString} {constructor}');
    expect(interpolate('{a}', { a: '{b}', b: 'no' })).toBe('{b}');
  });
});
