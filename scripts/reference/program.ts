import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository's root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** A TypeScript program over the repository's sources, with files made in memory. */
export interface Sources {
  program: ts.Program;
  checker: ts.TypeChecker;
  /** The files made in memory, by name: `made` is where the reference's types are printed from. */
  made: ts.SourceFile;
  files: ReadonlyMap<string, ts.SourceFile>;
}

/**
 * A program over `files` (relative to the root) and files made of `texts` beside this one (by name,
 * `made` among them), compiled with the repository's settings: what the reference reads types and
 * docs from.
 */
export function sourcesOf(files: readonly string[], texts: Readonly<Record<string, string>>): Sources {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const path = (name: string) => join(root, `scripts/reference/${name}.ts`);
  const made = new Map(Object.entries(texts).map(([name, text]) => [path(name), text]));
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) => {
    const text = made.get(name);
    return text === undefined
      ? getSourceFile(name, language, ...rest)
      : ts.createSourceFile(name, text, language, true);
  };
  host.fileExists = (name) => made.has(name) || fileExists(name);
  host.readFile = (name) => made.get(name) ?? readFile(name);
  const rootNames = [...made.keys(), ...files.map((file) => join(root, file))];
  const program = ts.createProgram({ rootNames, options: { ...options, noEmit: true }, host });
  const sourceFiles = new Map(
    Object.keys(texts).map((name) => {
      const file = program.getSourceFile(path(name));
      if (file === undefined) throw new Error(`The file ${name} made in memory is not in the program`);
      return [name, file] as const;
    }),
  );
  const printed = sourceFiles.get('made');
  if (printed === undefined) throw new Error('No file named made was made');
  return { program, checker: program.getTypeChecker(), made: printed, files: sourceFiles };
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
