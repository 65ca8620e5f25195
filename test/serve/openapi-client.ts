import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

/**
 * The diagnostics of `client` (a TypeScript module importing `paths` from `./api`) type-checked
 * strictly against the types openapi-typescript generates from `document`, with openapi-fetch.
 */
export async function typeCheckClient(document: object, client: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'statecrew-openapi-'));
  try {
    const ast = await openapiTS(document as Parameters<typeof openapiTS>[0]);
    writeFileSync(join(dir, 'api.ts'), astToString(ast));
    writeFileSync(join(dir, 'client.ts'), client);
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
    const program = ts.createProgram([join(dir, 'api.ts'), join(dir, 'client.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      skipLibCheck: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
    });
    return ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file?.fileName.slice(dir.length) ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A client of every kind of call: typed bodies, parameters and answers. */
export const GOOD_CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './api';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:1' });

export async function use(): Promise<string[]> {
  const seen: string[] = [];
  const started = await client.POST('/runs', {
    body: { definition: 'research', inputs: { topic: 'AI' } },
    params: { header: { 'Idempotency-Key': 'order-7' } },
  });
  if (started.data) {
    const kind: 'crew' | 'flow' = started.data.kind;
    seen.push(started.data.id, kind);
  }
  if (started.error) seen.push(started.error.error.code);
  const waited = await client.POST('/runs/wait', { body: { definition: 'review', timeoutMs: 1000 } });
  if (waited.data) {
    const trail: string[] | undefined = waited.data.flow?.trail;
    const step: string | undefined = waited.data.pending?.[0]?.step;
    seen.push(waited.data.status, String(trail), String(step), String(waited.data.execution?.summary));
  }
  const page = await client.GET('/runs', {
    params: { query: { status: 'paused', definition: 'review', createdFrom: '2026-01-01T00:00:00Z', limit: 10 } },
  });
  if (page.data) seen.push(...page.data.runs.map((run) => run.id), String(page.data.nextCursor));
  const run = await client.GET('/runs/{id}', { params: { path: { id: 'r-1' } } });
  if (run.data) seen.push(run.data.definition);
  await client.POST('/runs/{id}/resume', { params: { path: { id: 'r-1' } }, body: { route: 'yes' } });
  await client.POST('/runs/{id}/signal', { params: { path: { id: 'r-1' } }, body: { event: 'paid' } });
  await client.GET('/runs/{id}/agui', { params: { path: { id: 'r-1' }, query: { after: '3' } }, parseAs: 'text' });
  const history = await client.GET('/runs/{id}/history', {
    params: { path: { id: 'r-1' }, query: { after: 2, limit: 50 } },
  });
  if (history.data) {
    const next: number | undefined = history.data.next;
    const from: string | undefined = history.data.forkedFrom?.runId;
    seen.push(...history.data.checkpoints.map((c) => \`\${c.seq}:\${c.checkpoint}:\${c.status}\`), String(next), String(from));
  }
  const diff = await client.GET('/runs/{a}/diff/{b}', { params: { path: { a: 'r-1', b: 'r-2' } } });
  if (diff.data) seen.push(String(diff.data.path.divergesAt), ...diff.data.nodes.map((n) => n.change));
  const fork = await client.POST('/runs/{id}/fork', {
    params: { path: { id: 'r-1' }, header: { 'Idempotency-Key': 'fork-1' } },
    body: { at: 'check', state: { amount: 50 }, outputs: { draft: 'better' } },
  });
  if (fork.data) seen.push(fork.data.id, String(fork.data.forkedFrom?.checkpoint));
  await client.POST('/runs/{id}/fork', { params: { path: { id: 'r-1' } }, body: { at: 3 } });
  const thread = await client.GET('/threads/{thread}/runs', { params: { path: { thread: 'chat-1' } } });
  if (thread.data) seen.push(thread.data.thread, ...thread.data.runs.map((run) => String(run.thread)));
  await client.POST('/runs', { body: { definition: 'review', thread: 'chat-1' } });
  const evals = await client.GET('/evals');
  if (evals.data) seen.push(...evals.data.reports.map((head) => \`\${head.id}:\${head.means.exact}:\${head.coverage}\`));
  const report = await client.GET('/evals/{id}', { params: { path: { id: 'eval-1' } } });
  if (report.data) {
    const format: 1 = report.data.report.format;
    const scores: (number | undefined)[] = report.data.report.cases.map((c) => c.scores.exact?.score);
    seen.push(String(format), String(scores), String(report.data.report.summary.timeMs.p95));
  }
  if (report.error) seen.push(report.error.error.code);
  return seen;
}
`;

/** The same client with one call wrong: a definition that is not a string. */
export const WRONG_CLIENT = GOOD_CLIENT.replace("definition: 'research'", 'definition: 42');
