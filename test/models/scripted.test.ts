import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';

const request = (prompt: string, signal = new AbortController().signal): ModelRequest => ({
  agent: 'A',
  system: '',
  prompt,
  context: '',
  messages: [{ role: 'user', content: prompt }],
  tools: [],
  signal,
});

describe('createScriptedModel', () => {
  it('answers a list in call order with estimated usage, then fails with script_exhausted', async () => {
    const model = createScriptedModel([
      'first',
      { text: 'second', usage: { inputTokens: 1, outputTokens: 2 } },
    ]);
    await expect(model.generate(request('12345678'))).resolves.toEqual({
      text: 'first',
      usage: { inputTokens: 2, outputTokens: 2 },
    });
    await expect(model.generate(request('x'))).resolves.toEqual({
      text: 'second',
      usage: { inputTokens: 1, outputTokens: 2 },
    });
    await expect(model.generate(request('x'))).rejects.toMatchObject({
      code: 'script_exhausted',
      retryable: false,
    });
    expect(model.calls.map((c) => c.prompt)).toEqual(['12345678', 'x', 'x']);
  });

  it('answers from a function of the request, throwing errors it returns', async () => {
    const model = createScriptedModel((r, call) =>
      r.prompt === 'boom' ? new Error('boom') : `${call}:${r.prompt}`,
    );
    await expect(model.generate(request('a'))).resolves.toMatchObject({ text: '0:a' });
    await expect(model.generate(request('boom'))).rejects.toThrow('boom');
  });

  it('tracks calls in flight and rejects a pending call when its signal aborts', async () => {
    let release: (text: string) => void = () => {};
    const model = createScriptedModel(() => () => new Promise<string>((resolve) => (release = resolve)));
    const controller = new AbortController();
    const pending = model.generate(request('slow', controller.signal));
    const other = model.generate(request('other'));
    expect(model.inFlight).toBe(2);
    expect(model.peakInFlight).toBe(2);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    expect(model.aborted.map((c) => c.prompt)).toEqual(['slow']);
    release('done');
    await expect(other).resolves.toMatchObject({ text: 'done' });
    expect(model.inFlight).toBe(0);
  });
});

describe('createScriptedModel with a script function that is async or returns no reply', () => {
  it('awaits an async script function and answers with what it resolves to', async () => {
    const model = createScriptedModel(async (r, call) => `${call}:${r.prompt}`);
    await expect(model.generate(request('12345678'))).resolves.toEqual({
      text: '0:12345678',
      usage: { inputTokens: 2, outputTokens: 3 },
    });
    const streamedReply = createScriptedModel(async () => ({ chunks: ['a', 'b'] }));
    await expect(streamedReply.generate(request('x'))).resolves.toMatchObject({ text: 'ab' });
    const thrownError = createScriptedModel(async () => new Error('down'));
    await expect(thrownError.generate(request('x'))).rejects.toThrow('down');
  });

  it.each([
    [undefined, 'nothing (undefined)'],
    [42, 'number 42'],
    [{ reply: 'x' }, 'an object'],
    [null, 'null'],
  ])('fails with invalid_model_response naming what the script gave: %o', async (given, named) => {
    const model = createScriptedModel(() => given as unknown as string);
    const asynchronous = createScriptedModel(async () => given as unknown as string);
    for (const each of [model, asynchronous]) {
      await expect(each.generate(request('x'))).rejects.toMatchObject({
        code: 'invalid_model_response',
        retryable: false,
        message: `Model of agent "A" returned ${named} instead of text (invalid_model_response)`,
      });
    }
  });
});
