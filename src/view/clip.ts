/** Labels are cut at this many characters to fit a node box. */
export const MAX_LABEL = 40;

/** A label cut to fit a node box (or `max` characters), its last one an ellipsis. */
export function clip(text: string, max = MAX_LABEL): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
