import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UnknownCommandTargetError } from '../errors.js';
import type { Crew } from '../runtime/crew/crew.js';
import { isCrew, isFlow } from '../runtime/definition-kind.js';
import type { Flow } from '../runtime/flow/flow.js';
import { loadCrew } from '../yaml/load-crew.js';

/** What a command runs or analyses: a crew or a flow, and where it came from. */
export type Target = (
  | { kind: 'crew'; crew: Crew; name: string; source: TargetSource }
  | { kind: 'flow'; flow: Flow<object>; name: string; source: TargetSource }
) & {
  /**
   * The module's exports (a YAML folder's: its `crew.ts`'s, when it has one), for a command that
   * reads more of them than the target: `statecrew eval` its `scorers`.
   */
  exports?: Readonly<Record<string, unknown>>;
};

/** Where a target was loaded from, as the CLI records it beside a run (so `resume` can find it). */
export interface TargetSource {
  /** The module file or YAML directory, absolute. */
  file: string;
  /** The module export that holds it (`default` unless `--export` said otherwise). */
  export?: string;
  /** A YAML directory's crew, of the several its `crew.ts` defines (`crews`), as `--crew` picked it. */
  crew?: string;
}

const MODULE_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs']);
const YAML_COMPANIONS = ['crew.ts', 'crew.mts', 'crew.js', 'crew.mjs'];

/**
 * Loads the crew or flow a command names: a module's default export (or `exportName`), or a
 * directory holding CrewAI's `agents.yaml` and `tasks.yaml`, itself or in its `config/` folder as a
 * CrewAI project keeps them (a `crew.ts` or `crew.js` in the directory may export what `loadCrew`
 * takes: `llm`, `models`, `tools`, `schemas`, `guardrails`, `mcps`, `assign`, `taskOptions`,
 * `agentOptions`, `crews`, and `options` for the crew); `crewName` picks one of its `crews`
 * (`--crew`). A `.ts` module needs `tsx` installed in the project.
 */
export async function loadTarget(path: string, exportName?: string, crewName?: string): Promise<Target> {
  const file = resolve(path);
  if (!existsSync(file)) throw new UnknownCommandTargetError(path, 'no such file or directory');
  const yamlDir = yamlDirOf(file);
  if (yamlDir !== undefined) return yamlTarget(yamlDir, crewName);
  if (crewName !== undefined) {
    throw new UnknownCommandTargetError(
      path,
      '--crew picks a crew of a YAML crew folder, and this is a module',
    );
  }
  if (!MODULE_EXTENSIONS.has(extname(file))) {
    throw new UnknownCommandTargetError(
      path,
      'expected a .ts or .js module, or a directory with agents.yaml and tasks.yaml',
    );
  }
  const module = await importModule(file, path);
  const name = exportName ?? pickExport(module, path);
  const value = module[name];
  if (value === undefined) throw new UnknownCommandTargetError(path, `has no export "${name}"`);
  const source: TargetSource = { file, export: name };
  if (isFlow(value)) return { kind: 'flow', flow: value, name: value.name, source, exports: module };
  if (isCrew(value)) return { kind: 'crew', crew: value, name: value.name, source, exports: module };
  throw new UnknownCommandTargetError(path, `export "${name}" is neither a Crew nor a flow`);
}

/** A YAML crew: its directory (where `crew.ts` is) and the folder of its two files. */
interface YamlCrewDir {
  readonly dir: string;
  readonly yamlDir: string;
}

/**
 * The YAML crew `file` names: a directory with the two files, or with them in `config/` (CrewAI's
 * project layout), or one of the two files.
 */
function yamlDirOf(file: string): YamlCrewDir | undefined {
  const hasBoth = (dir: string) =>
    existsSync(join(dir, 'agents.yaml')) && existsSync(join(dir, 'tasks.yaml'));
  if (!statSync(file).isDirectory()) {
    if (!['agents.yaml', 'tasks.yaml'].includes(basename(file)) || !hasBoth(dirname(file))) return undefined;
    const yamlDir = dirname(file);
    const dir = basename(yamlDir) === 'config' && !hasBoth(dirname(yamlDir)) ? dirname(yamlDir) : yamlDir;
    return { dir, yamlDir };
  }
  if (hasBoth(file)) return { dir: file, yamlDir: file };
  if (hasBoth(join(file, 'config'))) return { dir: file, yamlDir: join(file, 'config') };
  throw new UnknownCommandTargetError(
    file,
    'a crew directory needs agents.yaml and tasks.yaml (in it, or in its config folder)',
  );
}

/** Exports of a crew's `crew.ts` that `loadCrew` takes under the same name. */
const COMPANION_OPTIONS = [
  'llm',
  'models',
  'tools',
  'schemas',
  'guardrails',
  'mcps',
  'assign',
  'taskOptions',
  'agentOptions',
  'crews',
] as const;

async function yamlTarget({ dir, yamlDir }: YamlCrewDir, crewName: string | undefined): Promise<Target> {
  const companion = YAML_COMPANIONS.map((f) => join(dir, f)).find((f) => existsSync(f));
  const parts = companion === undefined ? {} : await importModule(companion, companion);
  const options = (parts.options ?? {}) as Record<string, unknown>;
  // Named as the user would type them in error messages: relative to where the command runs.
  const shown = relative(process.cwd(), yamlDir) || '.';
  const named = COMPANION_OPTIONS.flatMap((key) => (parts[key] === undefined ? [] : [[key, parts[key]]]));
  const crew = loadCrew({
    ...options,
    agents: join(shown, 'agents.yaml'),
    tasks: join(shown, 'tasks.yaml'),
    ...Object.fromEntries(named),
    ...(crewName === undefined ? {} : { crew: crewName }),
  } as Parameters<typeof loadCrew>[0]);
  return {
    kind: 'crew',
    crew,
    name: crew.name,
    source: { file: dir, ...(crewName === undefined ? {} : { crew: crewName }) },
    exports: parts,
  };
}

/** A module's exports (a `.ts` one through the project's `tsx`), or a clear error. */
export async function loadModule(path: string): Promise<Record<string, unknown>> {
  const file = resolve(path);
  if (!existsSync(file)) throw new UnknownCommandTargetError(path, 'no such file or directory');
  if (!MODULE_EXTENSIONS.has(extname(file))) {
    throw new UnknownCommandTargetError(path, 'expected a .ts or .js module');
  }
  return importModule(file, path);
}

async function importModule(file: string, shown: string): Promise<Record<string, unknown>> {
  if (/\.[mc]?ts$/.test(file)) await registerTypeScript(shown);
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const hint = readAsCommonJs(error) ? COMMON_JS_HINT : '';
    throw new UnknownCommandTargetError(
      shown,
      `cannot be loaded: ${(error as Error).message ?? error}${hint}`,
    );
  }
}

/** Node's codes for an ES module (statecrew is one) required from a module it reads as CommonJS. */
const COMMON_JS_CODES = new Set(['ERR_REQUIRE_CYCLE_MODULE', 'ERR_REQUIRE_ESM', 'ERR_REQUIRE_ASYNC_MODULE']);

const COMMON_JS_HINT =
  ' — Node reads this file as CommonJS (no "type": "module" in the package.json above it), and statecrew is an ES module: add "type": "module" to that package.json, or name the file .mts (.mjs)';

/** Whether loading failed because the file was read as CommonJS while it imports ES modules. */
function readAsCommonJs(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && COMMON_JS_CODES.has(code);
}

let typeScript: Promise<void> | undefined;

/** Lets `import()` load TypeScript modules, through the project's `tsx`. */
function registerTypeScript(shown: string): Promise<void> {
  typeScript ??= import('tsx/esm/api').then(
    ({ register }) => {
      register();
    },
    () => {
      typeScript = undefined;
      throw new UnknownCommandTargetError(
        shown,
        'is TypeScript: install tsx in the project (npm install -D tsx), or point at the compiled .js',
      );
    },
  );
  return typeScript;
}

/** The export to use when none was named: `default`, else the one crew or flow the module exports. */
function pickExport(module: Record<string, unknown>, shown: string): string {
  if (module.default !== undefined) return 'default';
  const found = Object.keys(module).filter((key) => isCrew(module[key]) || isFlow(module[key]));
  if (found.length === 1) return found[0] as string;
  const which = found.length === 0 ? 'exports no crew or flow' : `exports several (${found.join(', ')})`;
  throw new UnknownCommandTargetError(shown, `has no default export and ${which}: name one with --export`);
}

export { isCrew, isFlow };
