import { FOLD_COLUMN_GAP, FOLD_PAD_X, FOLD_PAD_Y, FOLD_ROW_GAP, type Fold, type Size } from './fold.js';

/** A point of the picture, in SVG user units. */
interface At {
  x: number;
  y: number;
}

/** A fold placed on the picture: its grid and its top left corner. */
export interface PlacedFoldGrid {
  fold: Fold;
  left: number;
  top: number;
}

/** How far from a row's edge the horizontal lines to and from its members run. */
const BAND = 10;
/** How far from a cell's side its corridors run: edges in on the left, edges out on the right. */
const CORRIDOR = 8;

/** Where member `index` of a placed fold sits: its column, row and centre. */
export function cellAt(grid: PlacedFoldGrid, index: number): { column: number; row: number } & At {
  const { fold, left, top } = grid;
  const column = index % fold.columns;
  const row = Math.floor(index / fold.columns);
  return {
    column,
    row,
    x: left + FOLD_PAD_X + column * (fold.cell.width + FOLD_COLUMN_GAP) + fold.cell.width / 2,
    y: top + FOLD_PAD_Y + row * (fold.cell.height + FOLD_ROW_GAP) + fold.cell.height / 2,
  };
}

/** Points without a repeat of the one before. */
function distinct(points: At[]): At[] {
  return points.filter((p, i) => {
    const before = points[i - 1];
    return before === undefined || before.x !== p.x || before.y !== p.y;
  });
}

/**
 * The way between a fold's border point and member `index` (of size `box`), from the border inward:
 * along the band inside the fold's top (or bottom) edge, down (or up) the corridor beside the
 * member's column, along the band above (or below) its row, to its top (or bottom). Edges into a
 * member take the corridor on its left, edges out of it the one on its right, so the two never cross.
 */
export function foldRoute(
  grid: PlacedFoldGrid,
  index: number,
  box: Size,
  border: At,
  way: 'in' | 'out',
): At[] {
  const { fold, top } = grid;
  const cell = cellAt(grid, index);
  const fromTop = border.y <= top + fold.height / 2;
  const half = fold.cell.width / 2 + CORRIDOR;
  const corridor = way === 'in' ? cell.x - half : cell.x + half;
  const rowEdge = fromTop ? cell.y - fold.cell.height / 2 - BAND : cell.y + fold.cell.height / 2 + BAND;
  const foldEdge = fromTop ? top + FOLD_PAD_Y - BAND : top + fold.height - FOLD_PAD_Y + BAND;
  const memberEdge = fromTop ? cell.y - box.height / 2 : cell.y + box.height / 2;
  const inward = distinct([
    border,
    { x: border.x, y: foldEdge },
    { x: corridor, y: foldEdge },
    { x: corridor, y: rowEdge },
    { x: cell.x, y: rowEdge },
    { x: cell.x, y: memberEdge },
  ]);
  return way === 'in' ? inward : inward.reverse();
}

/** The way from one member of a fold to another (or itself), through the band below the grid. */
export function routeWithinFold(grid: PlacedFoldGrid, from: number, to: number, boxes: [Size, Size]): At[] {
  const below = { x: 0, y: grid.top + grid.fold.height };
  const out = foldRoute(grid, from, boxes[0], { ...below, x: cellAt(grid, from).x }, 'out');
  const back = foldRoute(grid, to, boxes[1], { ...below, x: cellAt(grid, to).x }, 'in');
  // Leave out the trips to the border: the way turns along the band inside it.
  return distinct([...out.slice(0, -2), ...back.slice(2)]);
}
