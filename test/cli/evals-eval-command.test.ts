import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EvalReport } from '../../src/evals/types.js';
import { CLI_TIMEOUT, cli, fixture } from './cli-helpers.js';

const module = fixture('evals-capitals/capitals.ts');
const cases = fixture('evals-capitals/cases.jsonl');
const worse = { EVALS_WORSE: '1' };

describe('statecrew eval', () => {
  it(
    'writes a baseline, then exits 1 naming the case that regressed against it',
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'statecrew-evals-eval-'));
      const first = await cli(['eval', module, '--dataset', cases, '--out', 'baseline.json'], { cwd });
      expect(first.stderr).not.toContain('statecrew: ');
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('Report written to baseline.json\n');
      const baseline = JSON.parse(readFileSync(join(cwd, 'baseline.json'), 'utf8')) as EvalReport;
      expect(baseline.summary.scorers.exact?.mean).toBe(1);

      const second = await cli(['eval', module, '--dataset', cases, '--baseline', 'baseline.json'], {
        cwd,
        env: worse,
      });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain('statecrew eval: case "japan" regressed on "exact": 1 → 0\n');
      expect(second.stderr).toMatch(
        /statecrew eval: scorer "exact" fell from 1 to 0\.6667 against the baseline/,
      );
      expect(second.stderr).not.toMatch(/case "(france|italy)" regressed/);
    },
    CLI_TIMEOUT,
  );

  it(
    'exits 1 when a scorer’s mean is under --fail-under, naming it, and 0 when it is above',
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'statecrew-evals-eval-'));
      const under = await cli(['eval', module, '--dataset', cases, '--fail-under', '0.8'], {
        cwd,
        env: worse,
      });
      expect(under.code).toBe(1);
      expect(under.stderr).toContain(
        'statecrew eval: scorer "exact" scored 0.6667, under --fail-under 0.8\n',
      );
      const above = await cli(['eval', module, '--dataset', cases, '--fail-under', '0.6'], {
        cwd,
        env: worse,
      });
      expect(above.stderr).not.toContain('statecrew: ');
      expect(above.code).toBe(0);
      // Without --out, each report is kept under .statecrew/evals by its id.
      const kept = readdirSync(join(cwd, '.statecrew', 'evals'));
      expect(kept).toHaveLength(2);
      const report = JSON.parse(
        readFileSync(join(cwd, '.statecrew', 'evals', kept[0] as string), 'utf8'),
      ) as EvalReport;
      expect(kept).toContain(`${report.id}.json`);
    },
    CLI_TIMEOUT,
  );

  it(
    'exits 1 with invalid_report in one line for a baseline that is not a report, running nothing',
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'statecrew-evals-eval-'));
      writeFileSync(join(cwd, 'broken.json'), JSON.stringify({ format: 1, id: 'x' }));
      const ran = await cli(['eval', module, '--dataset', cases, '--baseline', 'broken.json'], { cwd });
      expect(ran.code).toBe(1);
      expect(ran.stderr).toMatch(/^statecrew: Evaluation report broken\.json: .*\(invalid_report\)\n$/);
      expect(ran.stdout).toBe('');
      expect(existsSync(join(cwd, '.statecrew', 'evals'))).toBe(false);
    },
    CLI_TIMEOUT,
  );

  it(
    'refuses a module with no scorers and no --judge, naming scorers and --judge',
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'statecrew-evals-eval-'));
      const ran = await cli(['eval', fixture('crew.ts'), '--dataset', cases], { cwd });
      expect(ran.code).toBe(1);
      expect(ran.stderr).toMatch(
        /^statecrew: .*crew\.ts exports no scorers: export scorers \(a record or a list of scorers\) from it, or pass --judge <model> \(invalid_option\)\n$/,
      );
    },
    CLI_TIMEOUT,
  );
});
