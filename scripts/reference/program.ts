import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository's root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** A TypeScript program over the repository's sources, with one more file made in memory. */
export interface Sources {
  program: ts.Program;
  checker: ts.TypeChecker;
  /** The file made in memory. */
  made: ts.SourceFile;
}

/**
 * A program over `files` (relative to the root) and a file made of `text` beside this one, compiled
 * with the repository's settings: what the reference reads types and docs from.
 */
export function sourcesOf(files: readonly string[], text: string): Sources {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const madePath = join(root, 'scripts/reference/made.ts');
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) =>
    name === madePath
      ? ts.createSourceFile(name, text, language, true)
      : getSourceFile(name, language, ...rest);
  host.fileExists = (name) => name === madePath || fileExists(name);
  host.readFile = (name) => (name === madePath ? text : readFile(name));
  const rootNames = [madePath, ...files.map((file) => join(root, file))];
  const program = ts.createProgram({ rootNames, options: { ...options, noEmit: true }, host });
  const made = program.getSourceFile(madePath);
  if (made === undefined) throw new Error('The file made in memory is not in the program');
  return { program, checker: program.getTypeChecker(), made };
}

/** A symbol's docs as one line of Markdown: newlines joined, `{@link X}` as `X`. */
export function docOf(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  return oneLine(ts.displayPartsToString(symbol.getDocumentationComment(checker)));
}

/** The text of a symbol's `@default` tag, if it has one. */
export function defaultTagOf(symbol: ts.Symbol, checker: ts.TypeChecker): string | undefined {
  const tag = symbol.getJsDocTags(checker).find((t) => t.name === 'default');
  return tag === undefined ? undefined : oneLine(ts.displayPartsToString(tag.text));
}

/** Text on one line: runs of whitespace become one space, `{@link X}` becomes `X`. */
export function oneLine(text: string): string {
  return text
    .replaceAll(/\{@link\s+([^}\s]+)\s*\}/g, '$1')
    .replaceAll(/\s+/g, ' ')
    .trim();
}

/** A type as its declaration would write it, on one line, without the `| undefined` of an optional one. */
export function typeText(type: ts.Type, checker: ts.TypeChecker, at: ts.Node): string {
  const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope;
  const text = oneLine(checker.typeToString(type, at, flags))
    .replace(/^undefined \| /, '')
    .replace(/ \| undefined$/, '')
    // The checker spells out type arguments that are only the defaults.
    .replaceAll('z.ZodType<unknown, unknown, z.core.$ZodTypeInternals<unknown, unknown>>', 'ZodType')
    .replaceAll('Tool<unknown>', 'Tool');
  if (text.includes('import(')) throw new Error(`A type printed with its file path: ${text}`);
  return unwrapped(text);
}

/** `text` without the parentheses a function type keeps from the `| undefined` taken off it. */
function unwrapped(text: string): string {
  if (!text.startsWith('(') || !text.endsWith(')')) return text;
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '(') depth += 1;
    if (text[i] === ')') depth -= 1;
    if (depth === 0 && i < text.length - 1) return text;
  }
  return text.slice(1, -1);
}
