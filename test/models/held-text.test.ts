import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/index.js';
import { createScriptedModel, holdText } from '../../src/testing.js';

const request = (onDelta?: (delta: string) => void): ModelRequest => ({
  agent: 'A',
  system: '',
  prompt: 'write',
  context: '',
  messages: [{ role: 'user', content: 'write' }],
  tools: [],
  signal: new AbortController().signal,
  ...(onDelta === undefined ? {} : { onDelta }),
});

describe('a scripted reply streamed in chunks', () => {
  it('passes each released chunk to onDelta as it comes, and answers with the chunks joined', async () => {
    const text = holdText(['Hel', 'lo', '!']);
    const model = createScriptedModel([{ chunks: text }]);
    const deltas: string[] = [];
    let arrived: () => void = () => {};
    const first = new Promise<void>((resolve) => (arrived = resolve));
    let answered = false;
    const onDelta = (delta: string) => {
      deltas.push(delta);
      arrived();
    };
    const reply = model.generate(request(onDelta)).then((response) => {
      answered = true;
      return response;
    });
    text.release();
    await first;
    expect(deltas).toEqual(['Hel']);
    expect(answered).toBe(false);
    expect(text.released).toBe(1);
    text.releaseAll();
    await expect(reply).resolves.toEqual({ text: 'Hello!', usage: { inputTokens: 2, outputTokens: 2 } });
    expect(deltas).toEqual(['Hel', 'lo', '!']);
  });

  it('answers the whole text to a request that does not stream, with the usage it gives', async () => {
    const model = createScriptedModel([{ chunks: ['a', 'b'], usage: { inputTokens: 5, outputTokens: 1 } }]);
    await expect(model.generate(request())).resolves.toEqual({
      text: 'ab',
      usage: { inputTokens: 5, outputTokens: 1 },
    });
  });

  it('refuses chunks that are not strings and a count that is not a whole number ≥ 1 (invalid_option)', () => {
    expect(() => holdText(['a', 1 as unknown as string])).toThrow(
      expect.objectContaining({ code: 'invalid_option' }),
    );
    const text = holdText(['a']);
    expect(() => text.release(0)).toThrow(/holdText: option "count" must be a whole number ≥ 1/);
  });
});
