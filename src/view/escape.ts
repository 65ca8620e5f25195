const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** `text` safe inside HTML or SVG text and inside a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/**
 * `value` as JSON safe inside a `<script type="application/json">` block: `<`, `>` and `&` become
 * `\u003c`, `\u003e` and `\u0026` (so no `</script>` or `<!--` can appear), and U+2028/U+2029 are
 * escaped too. `JSON.parse` reads the text back unchanged.
 */
export function jsonForScript(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(/[<>&\u2028\u2029]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** `value` as a class-name token: letters, digits and dashes only (a tampered status cannot break out). */
export function classToken(value: string): string {
  return value.replace(/[^a-zA-Z0-9-]/g, '');
}
