/**
 * `docs/reference.md` is generated from the code (`npm run reference`): each option from its schema,
 * each event from `StatecrewEvent`, each error code from `ERROR_CODES`. This regenerates it in memory
 * and fails, naming the lines that differ, when the committed file is stale.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceMarkdown } from '../../scripts/reference/markdown.js';
import { root } from '../../scripts/reference/program.js';

/** The lines only one of the texts has: `- ` the committed file's, `+ ` the code's; at most `limit`. */
function differingLines(committed: string, generated: string, limit = 20): string[] {
  const count = (text: string) => {
    const lines = new Map<string, number>();
    for (const line of text.split('\n')) lines.set(line, (lines.get(line) ?? 0) + 1);
    return lines;
  };
  const had = count(committed);
  const has = count(generated);
  const only = (a: Map<string, number>, b: Map<string, number>, mark: string) =>
    [...a].filter(([line, n]) => n > (b.get(line) ?? 0)).map(([line]) => `${mark}${line}`);
  return [...only(had, has, '- '), ...only(has, had, '+ ')].slice(0, limit);
}

describe('docs/reference.md', () => {
  it('lists every option, event and error code as the code describes them now', {
    timeout: 180_000,
  }, async () => {
    const generated = await referenceMarkdown();
    const committed = readFileSync(join(root, 'docs/reference.md'), 'utf8');
    const differing = differingLines(committed, generated);
    expect(
      differing,
      `docs/reference.md is stale (npm run reference writes it):\n${differing.join('\n')}`,
    ).toEqual([]);
    expect(generated).toBe(committed);
  });
});
