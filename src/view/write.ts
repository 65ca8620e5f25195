import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { renderRunView } from './html.js';
import type { RunView } from './model.js';
import { layoutOptionsOf, type RenderRunViewOptions } from './options.js';

/**
 * Renders `view` and writes it to `path` as one self-contained HTML file, creating the missing
 * folders; resolves with the absolute path written. `options` are {@link renderRunView}'s.
 *
 * @example
 * const file = await writeRunView(toFlowView(flow, await flow.getRun(id)), 'views/refund.html');
 * await writeRunView(view, 'views/wide.html', { maxRowNodes: 20 });
 */
export async function writeRunView(
  view: RunView,
  path: string,
  options?: RenderRunViewOptions,
): Promise<string> {
  layoutOptionsOf(options, 'writeRunView');
  const html = renderRunView(view, options);
  const target = resolve(path);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, html, 'utf8');
  return target;
}
