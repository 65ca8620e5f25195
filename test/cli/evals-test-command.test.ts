import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EvalReport } from '../../src/evals/types.js';
import { CLI_TIMEOUT, cli, fixture } from './cli-helpers.js';

const project = fixture('evals-crewai');

/** CrewAI's table of three runs whose judge gave the two tasks `research` and `reporting` each time. */
function table(research: string, reporting: string, crew: string, average: string): string {
  return [
    '                                      Tasks Scores',
    '                                 (1-10 Higher is better)',
    '┏━━━━━━━━━━━━━━━━━━━━┯━━━━━━━┯━━━━━━━┯━━━━━━━┯━━━━━━━━━━━━┯━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓',
    '┃ Tasks/Crew/Agents  │ Run 1 │ Run 2 │ Run 3 │ Avg. Total │ Agents                      ┃',
    '┠────────────────────┼───────┼───────┼───────┼────────────┼─────────────────────────────┨',
    `┃ Task 1             │  ${research}  │  ${research}  │  ${research}  │    ${research}     │ - AI Senior Data Researcher ┃`,
    '┃                    │       │       │       │            │                             ┃',
    `┃ Task 2             │  ${reporting}  │  ${reporting}  │  ${reporting}  │    ${reporting}     │ - AI Reporting Analyst      ┃`,
    `┃ Crew               │ ${crew}  │ ${crew}  │ ${crew}  │    ${average}     │                             ┃`,
    '┃ Execution Time (s) │   0   │   0   │   0   │     0      │                             ┃',
    '┗━━━━━━━━━━━━━━━━━━━━┷━━━━━━━┷━━━━━━━┷━━━━━━━┷━━━━━━━━━━━━┷━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┛',
    '',
  ].join('\n');
}

describe('statecrew test', () => {
  it(
    "prints CrewAI's table for a CrewAI project run 3 times, the judge scoring each task",
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'statecrew-evals-test-'));
      const ran = await cli(['test', project, '-n', '3', '--input', 'topic=AI'], { cwd });
      expect(ran.stderr).not.toContain('statecrew: ');
      expect(ran.code).toBe(0);
      expect(ran.stdout).toBe(table('9.0', '7.0', '8.00', '8.0'));
    },
    CLI_TIMEOUT,
  );

  it(
    'gives the report with --json, the judge’s calls counted in its usage (tasks × iterations)',
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'statecrew-evals-test-'));
      const ran = await cli(
        ['test', project, '-n', '3', '--input', 'topic=AI', '--json', '-m', 'gpt-4o-mini'],
        {
          cwd,
        },
      );
      expect(ran.code).toBe(0);
      const report = JSON.parse(ran.stdout) as EvalReport;
      expect(report.iterations).toBe(3);
      expect(report.cases).toHaveLength(3);
      expect(report.summary.usage.judge.calls).toBe(6);
      expect(report.summary.usage.calls).toBe(6 + 6);
      const nodes = report.summary.scorers.quality?.nodes ?? {};
      expect(Object.keys(nodes)).toEqual(['research_task', 'reporting_task']);
      expect(nodes.research_task?.mean).toBeCloseTo(0.9, 10);
      expect(nodes.reporting_task?.mean).toBeCloseTo(0.7, 10);
    },
    CLI_TIMEOUT,
  );

  it(
    'replays the judge from a cassette',
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'statecrew-evals-test-'));
      const ran = await cli(['test', project, '--input', 'topic=AI', '--judge', 'openai/cassette-judge'], {
        cwd,
      });
      expect(ran.stderr).not.toContain('statecrew: ');
      expect(ran.code).toBe(0);
      expect(ran.stdout).toBe(table('8.0', '6.0', '7.00', '7.0'));
    },
    CLI_TIMEOUT,
  );

  it(
    'refuses a flow, and a judge that names no model, in one line each',
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'statecrew-evals-test-'));
      const flow = await cli(['test', fixture('payment-flow.ts')], { cwd });
      expect(flow.code).toBe(1);
      expect(flow.stderr).toMatch(
        /^statecrew: .*payment-flow\.ts: is flow ".*": statecrew test runs a crew .*\(unknown_command_target\)\n$/,
      );
      const judge = await cli(['test', project, '--judge', 'not a model'], { cwd });
      expect(judge.code).toBe(1);
      expect(judge.stderr).toMatch(
        /option "--judge" must be a model as a provider string.*\(invalid_option\)\n$/,
      );
    },
    CLI_TIMEOUT,
  );
});
