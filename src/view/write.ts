import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { renderRunView } from './html.js';
import type { RunView } from './model.js';

/**
 * Renders `view` and writes it to `path` as one self-contained HTML file, creating the missing
 * folders; resolves with the absolute path written.
 *
 * @example
 * const file = await writeRunView(toFlowView(flow, await flow.getRun(id)), 'views/refund.html');
 */
export async function writeRunView(view: RunView, path: string): Promise<string> {
  const target = resolve(path);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, renderRunView(view), 'utf8');
  return target;
}
