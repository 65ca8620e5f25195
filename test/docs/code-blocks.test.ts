/**
 * Docs that run: every ```ts / ```typescript block of README.md and docs/*.md is written to
 * `.scratch/docs-blocks/` (gitignored) as it is, type-checked in one `tsc --noEmit` pass with the
 * repository's strict settings, and run, stripped of its types, in a child process of plain `node`.
 * Its `statecrew…` imports resolve through package.json "exports" to the package the tests built
 * once (`test/global-setup.ts`), as in a user's project: no block loads or checks the sources again.
 *
 * Tags after the language in a block's info string:
 * - `fragment`: not runnable on its own (a real API key, a server beyond the local PostgreSQL and
 *   Redis, one option shown alone). Neither run nor type-checked; counted, and kept a minority.
 * - `services`: needs PostgreSQL or Redis on 127.0.0.1 (its own schema, prefix or queue, cleaned up
 *   afterwards); skipped when STATECREW_NO_SERVICES=1 says they are not running.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = join(root, '.scratch', 'docs-blocks');
const noServices = process.env.STATECREW_NO_SERVICES === '1';
/** At most this share of the blocks may be fragments: runnable blocks are the rule. */
const MAX_FRAGMENT_SHARE = 0.4;
const PARALLEL = 4;
const BLOCK_TIMEOUT_MS = 45_000;

interface Block {
  file: string;
  line: number;
  tags: string[];
  code: string;
}

/** The fenced ts/typescript blocks of one Markdown file, with the line their fence opens on. */
function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  let open: { fence: string; line: number; info: string[]; body: string[] } | undefined;
  for (const [index, text] of lines.entries()) {
    if (open === undefined) {
      const start = /^\s*(`{3,}|~{3,})\s*(.*)$/.exec(text);
      if (start !== null) {
        const info = (start[2] ?? '').trim().split(/\s+/).filter(Boolean);
        open = { fence: start[1] ?? '```', line: index + 1, info, body: [] };
      }
      continue;
    }
    if (text.trim().startsWith(open.fence) && text.trim().replaceAll(open.fence[0] ?? '`', '') === '') {
      const [language = '', ...tags] = open.info;
      if (language === 'ts' || language === 'typescript') {
        const indent = Math.min(...open.body.filter((l) => l.trim()).map((l) => l.search(/\S/)));
        const code = open.body.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n');
        blocks.push({ file, line: open.line, tags, code });
      }
      open = undefined;
      continue;
    }
    open.body.push(text);
  }
  return blocks;
}

/** The import specifiers of package.json "exports" (`statecrew`, `statecrew/testing`, …). */
function entryPoints(): Set<string> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, unknown>;
  };
  return new Set(
    Object.keys(pkg.exports).map((subpath) =>
      subpath === '.' ? 'statecrew' : `statecrew/${subpath.slice(2)}`,
    ),
  );
}

/** A block's code without its types, as JavaScript `node` runs. */
function stripTypes(code: string, file: string): string {
  return ts.transpileModule(code, {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  }).outputText;
}

function run(file: string, cwd: string): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [file],
      { cwd, timeout: BLOCK_TIMEOUT_MS, env: { ...process.env, FORCE_COLOR: '0' } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        done({
          code,
          stdout,
          stderr: error?.killed ? `${stderr}\n(killed after ${BLOCK_TIMEOUT_MS} ms)` : stderr,
        });
      },
    );
  });
}

const markdown = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const blocks = markdown.flatMap(blocksOf);
const fragments = blocks.filter((block) => block.tags.includes('fragment'));
const runnable = blocks.filter((block) => !block.tags.includes('fragment'));
const where = (block: Block) => `${block.file}:${block.line}`;

describe('the code blocks of README.md and docs/', () => {
  it('are mostly runnable: fragments stay a small share', () => {
    expect(runnable.length).toBeGreaterThan(0);
    expect(
      fragments.length / blocks.length,
      `fragments: ${fragments.map(where).join(', ')}`,
    ).toBeLessThanOrEqual(MAX_FRAGMENT_SHARE);
  });

  // About 30 blocks, each a node process of about a second of CPU, and one tsc pass of several
  // seconds: 20 to 35 s on a quiet 2-core machine. At load 12 the test's processes get a third of
  // the machine or less, so it needs several times that.
  it('every runnable block runs to exit code 0, and all of them type-check', {
    timeout: 300_000,
  }, async () => {
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    const modules = entryPoints();

    const written = runnable.map((block, index) => {
      const name = `${String(index).padStart(2, '0')}-${block.file.replace(/\W+/g, '-')}-${block.line}`;
      for (const [, spec] of block.code.matchAll(
        /(?:from\s+|import\s*\(\s*)['"](statecrew(?:\/[\w/-]+)?)['"]/g,
      )) {
        if (!modules.has(spec as string))
          throw new Error(`${where(block)}: ${spec} is not an entry point of package.json`);
      }
      const source = join(scratch, `${name}.ts`);
      writeFileSync(source, `${block.code}\n`);
      const file = join(scratch, `${name}.js`);
      writeFileSync(file, stripTypes(`${block.code}\n`, source));
      const cwd = join(scratch, 'cwd', name); // each block gets a working directory of its own (.statecrew/, files)
      mkdirSync(cwd, { recursive: true });
      return { block, file, cwd };
    });
    // The repository's settings, but without its paths to the sources: `statecrew…` is the built package.
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify(
        { extends: '../../tsconfig.json', compilerOptions: { paths: {} }, include: ['./*.ts'] },
        null,
        2,
      ),
    );

    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const typeCheck = new Promise<{ code: number | null; out: string }>((done) => {
      execFile(
        process.execPath,
        [
          tsc,
          '--noEmit',
          '-p',
          join(scratch, 'tsconfig.json'),
          // kept outside the directory rebuilt each run: a second run checks only what changed
          '--incremental',
          '--tsBuildInfoFile',
          join(root, '.scratch', 'docs-blocks.tsbuildinfo'),
        ],
        { cwd: root },
        (error, stdout, stderr) => {
          done({
            code: error === null ? 0 : typeof error.code === 'number' ? error.code : null,
            out: stdout + stderr,
          });
        },
      );
    });

    const failures: string[] = [];
    let skipped = 0;
    const queue = [...written];
    const lane = async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        if (noServices && next.block.tags.includes('services')) {
          skipped += 1;
          continue;
        }
        const result = await run(next.file, next.cwd);
        if (result.code !== 0) {
          failures.push(
            `${where(next.block)} (exit ${result.code}, ${relative(root, next.file)}):\n${result.stderr}${result.stdout}`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, lane));
    const checked = await typeCheck;
    const generatedRelative = (text: string) =>
      text.replace(/\.scratch\/docs-blocks\/(\d\d)-[\w-]+?\.ts/g, (match, index: string) => {
        const block = written[Number(index)]?.block;
        return block === undefined ? match : `${match} [${where(block)}]`;
      });
    console.log(
      `docs code blocks: ${blocks.length} — ${written.length - skipped} ran, ${skipped} skipped (no services), ${fragments.length} fragments`,
    );
    expect(failures.join('\n\n'), 'blocks that failed').toBe('');
    expect(generatedRelative(checked.out), 'tsc --noEmit over the blocks').toBe('');
    expect(checked.code).toBe(0);
  });
});
