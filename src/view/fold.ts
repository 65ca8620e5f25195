import { rankNodes } from './ranks.js';

/** A box's size, in SVG user units. */
export interface Size {
  width: number;
  height: number;
}

/**
 * A rank of the picture with too many nodes to stand side by side, folded into rows: one stand-in
 * box while dagre lays out the rest, then a grid of its members.
 */
export interface Fold {
  /** The stand-in's id in the layout (it names no node). */
  id: string;
  /** Its nodes, in the order they fill the grid: row by row, left to right. */
  members: string[];
  columns: number;
  rows: number;
  /** The size of a grid cell: its widest and tallest member. */
  cell: Size;
  /** The whole grid's size, with the room its edges run in. */
  width: number;
  height: number;
}

/** Room around the grid and between its cells, where the edges to and from its members run. */
export const FOLD_PAD_X = 20;
export const FOLD_PAD_Y = 22;
export const FOLD_COLUMN_GAP = 24;
export const FOLD_ROW_GAP = 32;
/** A folded rank's rows stay under this width (fewer columns when its labels are long). */
export const FOLD_MAX_WIDTH = 2400;

/** How many columns a rank of `count` boxes `cellWidth` wide gets: balanced rows, none too wide. */
function columnsFor(count: number, cellWidth: number, maxRowNodes: number): number {
  const fitting = Math.floor(
    (FOLD_MAX_WIDTH - 2 * FOLD_PAD_X + FOLD_COLUMN_GAP) / (cellWidth + FOLD_COLUMN_GAP),
  );
  const widest = Math.max(1, Math.min(maxRowNodes, fitting));
  const rows = Math.ceil(count / widest);
  return Math.ceil(count / rows);
}

/** A fold of `members` (already in grid order), sized from their boxes. */
function foldOf(id: string, members: string[], sizes: ReadonlyMap<string, Size>, maxRowNodes: number): Fold {
  const cell = {
    width: Math.max(...members.map((m) => sizes.get(m)?.width ?? 0)),
    height: Math.max(...members.map((m) => sizes.get(m)?.height ?? 0)),
  };
  const columns = columnsFor(members.length, cell.width, maxRowNodes);
  const rows = Math.ceil(members.length / columns);
  return {
    id,
    members,
    columns,
    rows,
    cell,
    width: 2 * FOLD_PAD_X + columns * cell.width + (columns - 1) * FOLD_COLUMN_GAP,
    height: 2 * FOLD_PAD_Y + rows * cell.height + (rows - 1) * FOLD_ROW_GAP,
  };
}

/** The list position of each node's first predecessor: siblings of one parent fill the grid together. */
function parentOrder(ids: readonly string[], edges: readonly { from: string; to: string; back?: boolean }[]) {
  const position = new Map(ids.map((id, i) => [id, i]));
  const parent = new Map<string, number>();
  for (const edge of edges) {
    const from = position.get(edge.from);
    if (edge.back === true || from === undefined) continue;
    parent.set(edge.to, Math.min(parent.get(edge.to) ?? from, from));
  }
  return (a: string, b: string) =>
    (parent.get(a) ?? -1) - (parent.get(b) ?? -1) || (position.get(a) ?? 0) - (position.get(b) ?? 0);
}

/**
 * The ranks of a picture with more than `maxRowNodes` nodes, each folded into rows of at most that
 * many (fewer when their boxes are wide, so a row stays under {@link FOLD_MAX_WIDTH}); the rows hold
 * the nodes in list order, grouped by their first predecessor.
 */
export function planFolds(
  ids: readonly string[],
  edges: readonly { from: string; to: string; back?: boolean }[],
  sizes: ReadonlyMap<string, Size>,
  maxRowNodes: number,
): Fold[] {
  const ranks = rankNodes(ids, edges);
  const byRank = new Map<number, string[]>();
  for (const id of ids) {
    const rank = ranks.get(id) ?? 0;
    const members = byRank.get(rank);
    if (members === undefined) byRank.set(rank, [id]);
    else members.push(id);
  }
  const order = parentOrder(ids, edges);
  const taken = new Set(ids);
  const folds: Fold[] = [];
  for (const [rank, members] of [...byRank].sort(([a], [b]) => a - b)) {
    if (members.length <= maxRowNodes) continue;
    let id = `fold:${rank}`;
    while (taken.has(id)) id = `${id}'`;
    folds.push(foldOf(id, [...members].sort(order), sizes, maxRowNodes));
  }
  return folds;
}
