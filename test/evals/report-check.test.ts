import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidReportError, parseEvalReport, readEvalReportFile } from '../../src/index.js';
import { sampleReport } from '../fixtures/evals/store/report.js';

const root = mkdtempSync(join(tmpdir(), 'statecrew-report-check-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The `invalid_report` error `run` throws (fails if it throws nothing or something else). */
function refusal(run: () => unknown): InvalidReportError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidReportError) return error;
    throw error;
  }
  throw new Error('expected invalid_report');
}

/** A sample report as JSON, changed by `edit`. */
function edited(edit: (report: Record<string, unknown> & { cases: Record<string, unknown>[] }) => void) {
  const report = JSON.parse(JSON.stringify(sampleReport('r-1')));
  edit(report);
  return report as unknown;
}

describe('parseEvalReport', () => {
  it('gives back a valid report as it is, unknown extra fields passed through', () => {
    const report = { ...sampleReport('r-1'), note: 'kept' };
    const parsed = parseEvalReport(JSON.parse(JSON.stringify(report)), 'baseline.json');
    expect(parsed).toEqual(report);
  });

  it('names the first wrong field with its path: cases[1].scores, summary.timeMs.p95, coverage.edges[0].taken', () => {
    const cases = [
      [edited((r) => delete r.cases[1]?.scores), 'cases[1].scores'],
      [
        edited((r) => ((r.summary as { timeMs: { p95: unknown } }).timeMs.p95 = 'slow')),
        'summary.timeMs.p95',
      ],
      [
        edited((r) => ((r.coverage as { edges: object[] }).edges[0] = { from: 'a', to: 'b' })),
        'coverage.edges[0].taken',
      ],
      [edited((r) => ((r.cases[0] as { status: unknown }).status = 'done')), 'cases[0].status'],
      [edited((r) => delete r.id), 'id'],
      [
        edited((r) => ((r.cases[0] as { path: { trail: unknown } }).path.trail = 'research')),
        'cases[0].path.trail',
      ],
    ] as const;
    for (const [value, field] of cases) {
      const error = refusal(() => parseEvalReport(value, 'baseline.json'));
      expect(error.code).toBe('invalid_report');
      expect(error.details).toEqual({ where: 'baseline.json', field });
      expect(error.message).toContain(`baseline.json: ${field}:`);
    }
  });

  it('refuses another format, and what is no object, naming where', () => {
    const other = refusal(() => parseEvalReport({ ...sampleReport('r-1'), format: 2 }, 'old.json'));
    expect(other.details).toEqual({ where: 'old.json', field: 'format' });
    expect(other.message).toMatch(/format is 2, not 1/);
    const missing = refusal(() => parseEvalReport({ id: 'x' }, 'old.json'));
    expect(missing.message).toMatch(/format is missing/);
    for (const value of [null, [], 'report', 3]) {
      expect(refusal(() => parseEvalReport(value, 'x.json')).message).toMatch(/x\.json: is not an object/);
    }
  });
});

describe('readEvalReportFile', () => {
  it('reads a report written as JSON', async () => {
    const file = join(root, 'good.json');
    writeFileSync(file, JSON.stringify(sampleReport('r-file')));
    expect(await readEvalReportFile(file)).toEqual(sampleReport('r-file'));
  });

  it('refuses a missing file, a file that is not JSON and one of another format, naming the file (invalid_report)', async () => {
    const notJson = join(root, 'broken.json');
    writeFileSync(notJson, '{ "format": 1,');
    const other = join(root, 'other.json');
    writeFileSync(other, JSON.stringify({ ...sampleReport('r'), format: 3 }));
    const missing = join(root, 'missing.json');
    const outcomes = await Promise.all(
      [missing, notJson, other].map((file) =>
        readEvalReportFile(file).then(
          () => undefined,
          (e: unknown) => e,
        ),
      ),
    );
    expect(outcomes.map((e) => (e as InvalidReportError).code)).toEqual([
      'invalid_report',
      'invalid_report',
      'invalid_report',
    ]);
    expect(outcomes.map((e) => (e as InvalidReportError).details.where)).toEqual([missing, notJson, other]);
    expect((outcomes[0] as Error).message).toMatch(/no such file/);
    expect((outcomes[1] as Error).message).toMatch(/is not JSON/);
    expect((outcomes[2] as InvalidReportError).details.field).toBe('format');
  });
});
