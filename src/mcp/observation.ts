/** One piece of an MCP tool result, as far as an observation reads it. */
interface ContentPart {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  name?: string;
  uri?: string;
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string };
}

/** An MCP tool call's result as the SDK returns it. */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean | undefined;
  /** An old server's result shape. */
  toolResult?: unknown;
}

/**
 * A tool result as the text a model reads: text parts joined; structured content as JSON (unless a
 * text part says the same); resource links as `name (uri)`; embedded resources by their text; images
 * and audio described by their type and size (`[image image/png, 1048 bytes]`).
 */
export function observationOf(result: McpCallResult): string {
  if (result.toolResult !== undefined && result.content === undefined) return jsonOf(result.toolResult);
  const parts = Array.isArray(result.content) ? (result.content as ContentPart[]) : [];
  const lines = parts.map(partText);
  const { structuredContent } = result;
  if (structuredContent !== undefined && !saysTheSame(lines, structuredContent))
    lines.push(jsonOf(structuredContent));
  return lines.join('\n');
}

function partText(part: ContentPart): string {
  switch (part.type) {
    case 'text':
      return part.text ?? '';
    case 'image':
    case 'audio':
      return `[${part.type} ${part.mimeType ?? 'unknown type'}, ${bytesOf(part.data)} bytes]`;
    case 'resource_link':
      return `${part.name ?? part.uri ?? 'resource'} (${part.uri ?? ''})`;
    case 'resource': {
      const resource = part.resource ?? {};
      if (typeof resource.text === 'string') return resource.text;
      return `[resource ${resource.uri ?? ''} ${resource.mimeType ?? ''}, ${bytesOf(resource.blob)} bytes]`;
    }
    default:
      return jsonOf(part);
  }
}

/** The size of base64 data once decoded. */
function bytesOf(base64: string | undefined): number {
  return base64 === undefined ? 0 : Buffer.byteLength(base64, 'base64');
}

/**
 * Whether the text parts already carry the structured content: one of them is its JSON, or it holds
 * a single string that is the whole text (a file's content).
 */
function saysTheSame(lines: readonly string[], structured: unknown): boolean {
  const json = jsonOf(structured);
  if (lines.some((line) => sameJson(line, json))) return true;
  if (typeof structured !== 'object' || structured === null) return false;
  const values = Object.values(structured);
  return values.length === 1 && typeof values[0] === 'string' && values[0] === lines.join('\n');
}

function sameJson(text: string, json: string): boolean {
  try {
    return jsonOf(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}

function jsonOf(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}
