import { z } from 'zod';
import { option } from '../options/option.js';
import { parseOptions } from '../options/parse.js';
import { DEFAULT_MAX_ROW_NODES, type LayoutOptions } from './layout.js';

/** The options of `renderRunView` and `writeRunView`: each option's type, check, default and docs, once. */
export const renderRunViewOptionsSchema = z.strictObject({
  /**
   * The most graph nodes side by side: a rank with more (a wide fan-out) is folded into rows of at
   * most this many, fewer when their labels are long so that a row stays under about 2,400 px.
   * @default 12
   */
  maxRowNodes: option<number>(
    'a whole number of at least 1',
    (n) => Number.isInteger(n) && (n as number) >= 1,
  ).default(DEFAULT_MAX_ROW_NODES),
});

/** How `renderRunView` and `writeRunView` draw a run. */
export interface RenderRunViewOptions extends z.input<typeof renderRunViewOptionsSchema> {}

/** The layout `options` ask for, checked: `invalid_option` names a wrong or unknown one. */
export function layoutOptionsOf(options: RenderRunViewOptions | undefined, where: string): LayoutOptions {
  return parseOptions(renderRunViewOptionsSchema, where, options ?? {});
}
