import { InvalidOptionError } from '../errors.js';
import { checkOptionKeys } from '../runtime/crew/option-keys.js';
import { DEFAULT_MAX_ROW_NODES, type LayoutOptions } from './layout.js';

/** How `renderRunView` and `writeRunView` draw a run. */
export interface RenderRunViewOptions {
  /**
   * The most graph nodes side by side: a rank with more (a wide fan-out) is folded into rows of at
   * most this many, fewer when their labels are long so that a row stays under about 2,400 px.
   * @default 12
   */
  maxRowNodes?: number;
}

const KNOWN: Readonly<Record<keyof RenderRunViewOptions, true>> = { maxRowNodes: true };

/** The layout `options` ask for, checked: `invalid_option` names a wrong or unknown one. */
export function layoutOptionsOf(options: RenderRunViewOptions | undefined, where: string): LayoutOptions {
  if (options === undefined) return { maxRowNodes: DEFAULT_MAX_ROW_NODES };
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(where, 'options', 'an object', options);
  }
  checkOptionKeys(where, options, KNOWN);
  const { maxRowNodes = DEFAULT_MAX_ROW_NODES } = options;
  if (!Number.isInteger(maxRowNodes) || maxRowNodes < 1) {
    throw new InvalidOptionError(where, 'maxRowNodes', 'a whole number of at least 1', maxRowNodes);
  }
  return { maxRowNodes };
}
