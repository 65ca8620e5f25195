import { InvalidOptionError } from '../errors.js';

/**
 * A text in pieces that a test lets go one at a time: as a scripted reply's `chunks`, the model
 * streams each piece only once it is released, so a test holds a model mid-stream without timing.
 * It is iterated once.
 */
export interface HeldText extends AsyncIterable<string> {
  /** How many pieces were let go so far. */
  readonly released: number;
  /** Lets the next `count` pieces go (fewer when fewer are left). @default 1 */
  release(count?: number): void;
  /** Lets every piece left go. */
  releaseAll(): void;
}

/**
 * Holds `chunks` until the test releases them: the pieces of a scripted reply streamed on cue.
 *
 * @example
 * const text = holdText(['Hel', 'lo']);
 * const llm = createScriptedModel([{ chunks: text }]);
 * // … the run streams nothing yet …
 * text.release(); // 'Hel' streams
 * text.releaseAll(); // 'lo' streams, and the reply 'Hello' ends the call
 */
export function holdText(chunks: readonly string[]): HeldText {
  if (!Array.isArray(chunks) || chunks.some((chunk) => typeof chunk !== 'string'))
    throw new InvalidOptionError('holdText', 'chunks', 'a list of strings', chunks);
  const pieces = [...chunks];
  let released = 0;
  let wake: (() => void) | undefined;
  const release = (count = 1) => {
    if (!Number.isInteger(count) || count < 1)
      throw new InvalidOptionError('holdText', 'count', 'a whole number ≥ 1', count);
    released = Math.min(pieces.length, released + count);
    wake?.();
  };
  return {
    get released() {
      return released;
    },
    release,
    releaseAll: () => release(Math.max(1, pieces.length)),
    async *[Symbol.asyncIterator]() {
      for (const [index, piece] of pieces.entries()) {
        while (index >= released) await new Promise<void>((resolve) => (wake = resolve));
        yield piece;
      }
    },
  };
}
