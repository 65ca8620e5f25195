/**
 * The public surface, snapshotted: for the root entry and every subpath of package.json's "exports",
 * each exported name with its kind — what it is at run time (class, function, object, array, string,
 * number…) or, for an export only the type checker sees, `interface` or `type`. Any change to the API
 * (an export added, removed, renamed, or turned from a class into a function) shows as a snapshot diff:
 * update it with `npx vitest run test/api/exports.test.ts -u` when the change is deliberate.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Entry {
  /** What a user imports: `statecrew`, `statecrew/stores/postgres`. */
  specifier: string;
  /** The source file the entry is built from, relative to the package: `src/stores/postgres.ts`. */
  source: string;
}

/** The entries of package.json's "exports", each with the `src/` file its `dist/` file is built from. */
function entries(): Entry[] {
  const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
    name: string;
    exports: Record<string, { types: string; default: string }>;
  };
  return Object.entries(pkg.exports).map(([subpath, target]) => ({
    specifier: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
    source: target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'),
  }));
}

/** What a value is at run time: `class` and `function` told apart by their source text. */
function runtimeKind(value: unknown): string {
  if (typeof value === 'function') {
    return /^class\b/.test(Function.prototype.toString.call(value)) ? 'class' : 'function';
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** What a type-only export is: its declaration's kind as the checker names it. */
function typeKind(symbol: ts.Symbol): string {
  const { flags } = symbol;
  if (flags & ts.SymbolFlags.Interface) return 'interface';
  if (flags & ts.SymbolFlags.TypeAlias) return 'type';
  if (flags & ts.SymbolFlags.Class) return 'class (type only)';
  if (flags & ts.SymbolFlags.Enum) return 'enum (type only)';
  return 'type';
}

/** The type checker over every entry: the names (types included) each entry exports, with their symbol. */
function checkedExports(sources: readonly string[]): Map<string, Map<string, ts.Symbol>> {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${root}tsconfig.json`,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  const program = ts.createProgram(
    sources.map((s) => `${root}${s}`),
    { ...config?.options, noEmit: true },
  );
  const checker = program.getTypeChecker();
  const bySource = new Map<string, Map<string, ts.Symbol>>();
  for (const source of sources) {
    const file = program.getSourceFile(`${root}${source}`);
    const module = file === undefined ? undefined : checker.getSymbolAtLocation(file);
    if (module === undefined) throw new Error(`The type checker found no module ${source}`);
    const names = new Map<string, ts.Symbol>();
    for (const symbol of checker.getExportsOfModule(module)) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      names.set(symbol.name, target);
    }
    bySource.set(source, names);
  }
  return bySource;
}

/** `name: kind` for every export of an entry, sorted by name: values as they load, the rest as types. */
function surface(loaded: Record<string, unknown>, typed: Map<string, ts.Symbol>): string[] {
  const names = new Set([...Object.keys(loaded), ...typed.keys()]);
  return [...names].sort().map((name) => {
    if (Object.hasOwn(loaded, name)) return `${name}: ${runtimeKind(loaded[name])}`;
    return `${name}: ${typeKind(typed.get(name) as ts.Symbol)}`;
  });
}

describe('public surface', () => {
  const all = entries();
  let checked: Map<string, Map<string, ts.Symbol>>;

  beforeAll(() => {
    checked = checkedExports(all.map((e) => e.source));
  }, 60_000);

  it('has these entry points, each built from its src/ file', () => {
    expect(all.map((e) => `${e.specifier} <- ${e.source}`)).toMatchSnapshot();
  });

  it.each(all)('of $specifier exports these names, of these kinds', async (entry) => {
    const typed = checked.get(entry.source) ?? new Map<string, ts.Symbol>();
    const loaded = (await import(`${root}${entry.source}`)) as Record<string, unknown>;
    // What loads is what the types declare: no value exported without a declaration.
    expect(Object.keys(loaded).filter((name) => !typed.has(name))).toEqual([]);
    expect(surface(loaded, typed)).toMatchSnapshot();
  });
});
