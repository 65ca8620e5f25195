import { describe, expect, it } from 'vitest';
import { InvalidInputsError, interpolate } from '../../src/index.js';

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

describe('interpolate with objects and lists', () => {
  it('shows a plain object or an array as one line of JSON, a space after each colon and comma', () => {
    const people = [
      { name: 'Alice', age: 30, skills: ['Python', 'AI'] },
      { name: 'Bob', age: 25, skills: [] },
    ];
    const meta = { source: 'public', validated: true, note: null, missing: undefined };
    expect(interpolate('Summarize {people} for {meta}', { people, meta })).toBe(
      'Summarize [{"name": "Alice", "age": 30, "skills": ["Python", "AI"]}, {"name": "Bob", "age": 25, "skills": []}] for {"source": "public", "validated": true, "note": null}',
    );
    const shown = interpolate('{data}', {
      data: { quotes: `"double" and 'single'`, big: 10n, list: [1.5, undefined] },
    });
    expect(shown).toBe(`{"quotes": "\\"double\\" and 'single'", "big": 10, "list": [1.5, null]}`);
    expect(JSON.parse(shown)).toEqual({
      quotes: `"double" and 'single'`,
      big: 10,
      list: [1.5, null],
    });
    expect(interpolate('{a} {b}', { a: [], b: Object.create(null) as object })).toBe('[] {}');
  });

  it.each([
    ['a Set', new Set([1]), 'a Set', 'inputs.data'],
    ['a Map', new Map([['k', 1]]), 'a Map', 'inputs.data'],
    ['a Date', new Date(0), 'a Date', 'inputs.data'],
    ['a class instance', new (class Point {})(), 'a Point', 'inputs.data'],
    ['a function', () => 1, 'a function', 'inputs.data'],
    ['a symbol', Symbol('s'), 'a symbol', 'inputs.data'],
    [
      'a Set inside an object',
      { profile: { tags: [new Set(['a'])] } },
      'a Set',
      'inputs.data.profile.tags[0]',
    ],
  ])('refuses %s with invalid_inputs naming the key and the type', (_, data, type, path) => {
    let error: unknown;
    try {
      interpolate('Use {data}', { data });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(InvalidInputsError);
    expect(error).toMatchObject({ code: 'invalid_inputs', details: { key: 'data', type, path } });
    expect((error as Error).message).toContain(`input "data" holds ${type}`);
  });

  it('refuses a circular reference rather than looping', () => {
    const loop: Record<string, unknown> = { name: 'x' };
    loop.self = loop;
    expect(() => interpolate('{loop}', { loop })).toThrow(
      /input "loop" holds a circular reference at inputs\.loop\.self/,
    );
  });
});
