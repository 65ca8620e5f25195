import { readFileSync } from 'node:fs';
import {
  type Document,
  isAlias,
  isMap,
  isNode,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  visit,
  type YAMLError,
} from 'yaml';
import { ConfigError, describeThrown } from '../errors.js';

/** A parsed YAML crew file: the name its messages use, its document, and the line of each offset. */
export interface YamlSource {
  /** The path as given, or `agents.yaml` / `tasks.yaml` for text. */
  readonly file: string;
  readonly doc: Document;
  readonly lines: LineCounter;
}

/** One top-level entry of a crew file (an agent, a task): its name and its value as plain data. */
export interface YamlEntry {
  readonly name: string;
  readonly value: unknown;
}

/** A step of a path into a document: a mapping key or a list index. */
export type YamlPath = readonly (string | number)[];

/** Whether `value` names a file rather than holding YAML: one line that ends in `.yaml` or `.yml`. */
export function isYamlPath(value: string): boolean {
  return !value.includes('\n') && /\.ya?ml$/i.test(value);
}

/**
 * Reads and parses a crew file: `value` is a path ({@link isYamlPath}, read relative to the working
 * directory) or YAML text, which messages call `textName`. Syntax errors, duplicate keys, aliases
 * without an anchor and an unreadable file are `ConfigError`s.
 */
export function readYamlSource(value: string, textName: string): YamlSource {
  if (!isYamlPath(value)) return parseYaml(value, textName);
  let text: string;
  try {
    text = readFileSync(value, 'utf8');
  } catch (error) {
    const missing = error instanceof Error && 'code' in error && error.code === 'ENOENT';
    const why = missing ? 'the file does not exist' : `the file cannot be read: ${describeThrown(error)}`;
    throw new ConfigError(value, undefined, why);
  }
  return parseYaml(text, value);
}

function parseYaml(text: string, file: string): YamlSource {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const source = { file, doc, lines };
  const [error] = doc.errors;
  if (error !== undefined) throw syntaxError(source, error);
  visit(doc, {
    Alias(_, alias) {
      if (alias.resolve(doc) !== undefined) return;
      const line = lineAt(source, alias.range?.[0]);
      throw new ConfigError(file, line, `alias *${alias.source} names no anchor defined before it`);
    },
  });
  return source;
}

function syntaxError(source: YamlSource, error: YAMLError): ConfigError {
  const [offset] = error.pos;
  const line = lineAt(source, offset);
  if (error.code === 'DUPLICATE_KEY') {
    let key: string | undefined;
    visit(source.doc, {
      Pair(_, pair) {
        if (!isScalar(pair.key) || pair.key.range?.[0] !== offset) return;
        key = String(pair.key.value);
        return visit.BREAK;
      },
    });
    if (key !== undefined) {
      return new ConfigError(source.file, line, `key "${key}" appears twice in one mapping`, key);
    }
  }
  if (error.code === 'MULTIPLE_DOCS') {
    return new ConfigError(
      source.file,
      line,
      'a crew file holds one YAML document, but a second one starts here',
    );
  }
  return new ConfigError(source.file, line, `YAML syntax error: ${error.message}`);
}

function lineAt(source: YamlSource, offset: number | undefined): number {
  return source.lines.linePos(offset ?? 0).line;
}

function startOf(node: unknown): number | undefined {
  return isNode(node) ? node.range?.[0] : undefined;
}

/**
 * The line of the node at `path`: of its key (`part: 'key'`) or of its value, which is the key's when
 * the value is empty. A path that goes past what the document holds gives the line of the deepest key
 * it found (a missing key: the line of the entry that lacks it).
 */
export function lineOf(source: YamlSource, path: YamlPath, part: 'key' | 'value' = 'value'): number {
  let node: unknown = source.doc.contents;
  let keyAt = startOf(node);
  let valueAt = keyAt;
  for (const step of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(step));
      if (pair === undefined) return lineAt(source, keyAt);
      keyAt = startOf(pair.key) ?? keyAt;
      node = pair.value;
    } else if (isSeq(node) && typeof step === 'number' && node.items[step] !== undefined) {
      node = node.items[step];
      keyAt = startOf(node) ?? keyAt;
    } else {
      return lineAt(source, keyAt);
    }
    const empty = node === null || (isScalar(node) && node.value === null);
    valueAt = empty ? keyAt : (startOf(node) ?? keyAt);
  }
  return lineAt(source, part === 'key' ? keyAt : valueAt);
}

/**
 * The document's top-level entries in file order (`agents.yaml`'s agents, `tasks.yaml`'s tasks);
 * `ConfigError` unless the document is a mapping of at least one entry, each keyed by a name.
 */
export function topEntries(source: YamlSource, kind: 'agent' | 'task'): YamlEntry[] {
  const root = source.doc.contents;
  const wanted = `it must map each ${kind} name to the ${kind}'s keys`;
  if (root === null) throw new ConfigError(source.file, 1, `the document is empty; ${wanted}`);
  if (!isMap(root)) {
    const got = isAlias(root) ? 'an alias' : describeValue(root.toJS(source.doc));
    const hint =
      isScalar(root) && typeof root.value === 'string' ? ' (a file path ends in .yaml or .yml)' : '';
    throw new ConfigError(source.file, lineAt(source, startOf(root)), `${wanted}, got ${got}${hint}`);
  }
  if (root.items.length === 0) {
    throw new ConfigError(source.file, lineAt(source, startOf(root)), `the document defines no ${kind}s`);
  }
  return root.items.map((pair) => {
    const key = pair.key;
    if (!isScalar(key) || key.value === null || String(key.value).trim() === '') {
      const line = lineAt(source, startOf(key) ?? startOf(pair.value));
      throw new ConfigError(source.file, line, `each ${kind} needs a name as its key`);
    }
    const name = String(key.value);
    try {
      return { name, value: isNode(pair.value) ? pair.value.toJS(source.doc) : null };
    } catch (error) {
      const line = lineAt(source, startOf(key));
      throw new ConfigError(source.file, line, `${kind} "${name}" cannot be read: ${describeThrown(error)}`);
    }
  });
}

/** A value as a message shows it: strings quoted (and cut at 60 characters), lists and mappings named. */
export function describeValue(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return String(value);
}
