/** How many columns a text takes, counted in code points (what a terminal shows for plain text). */
export function textWidth(text: string): number {
  return [...text].length;
}

/** `text` cut to at most `width` columns, its last kept character replaced with `…` when it was cut. */
export function ellipsize(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width <= 0) return '';
  return `${chars.slice(0, width - 1).join('')}…`;
}

/** `text` cut (with `…`) or padded with spaces to exactly `width` columns. */
export function fitCell(text: string, width: number): string {
  const cut = ellipsize(text, width);
  return cut + ' '.repeat(Math.max(0, width - textWidth(cut)));
}

/** A line cut (with `…`) to the terminal's `columns`, when they are known; else as it is. */
export function clipLine(line: string, columns: number | undefined): string {
  return columns === undefined || columns <= 0 ? line : ellipsize(line, columns);
}

/** A column that may get narrower to fit a table into a terminal, and how narrow. */
export interface Shrink {
  column: number;
  minimum: number;
}

/**
 * The widths of a table's columns, separated by `gap` spaces, so that a row fits `columns`: the
 * natural widths when they fit (or `columns` is unknown); else the `shrinks` are taken in order, each
 * narrowing its column down to its minimum until the row fits. A table that still does not fit keeps
 * those minimums (its rows are then cut at the edge).
 */
export function fitWidths(
  natural: readonly number[],
  shrinks: readonly Shrink[],
  gap: number,
  columns: number | undefined,
): number[] {
  const widths = [...natural];
  if (columns === undefined || columns <= 0) return widths;
  const total = () => widths.reduce((sum, w) => sum + w, 0) + gap * Math.max(0, widths.length - 1);
  for (const { column, minimum } of shrinks) {
    const over = total() - columns;
    if (over <= 0) break;
    const width = widths[column] ?? 0;
    widths[column] = Math.max(Math.min(width, minimum), width - over);
  }
  return widths;
}
