import { describe, expect, it } from 'vitest';
import { crewaiTable } from '../../src/evals/crewai-table.js';
import { Agent, Crew, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { fakeCase, fakeReport } from './evals-report-fake.js';

const tasks = ['research_task', 'reporting_task'];

/** A crew of the two tasks, each with its agent (roles filled from `{topic}`). */
function twoTaskCrew(): Crew {
  const llm = createScriptedModel(['x']);
  const researcher = new Agent({ role: '{topic} Senior Data Researcher', goal: 'g', backstory: 'b', llm });
  const analyst = new Agent({ role: '{topic} Reporting Analyst', goal: 'g', backstory: 'b', llm });
  return new Crew({
    name: 'crew',
    agents: [researcher, analyst],
    tasks: [
      new Task({ name: 'research_task', description: 'd', expectedOutput: 'e', agent: researcher }),
      new Task({ name: 'reporting_task', description: 'd', expectedOutput: 'e', agent: analyst }),
    ],
  });
}

describe('crewaiTable', () => {
  it("prints CrewAI's table: a row per task with each run's score, the average and the agent, then Crew and Execution Time (s)", () => {
    const report = fakeReport(
      [
        fakeCase(0, 1, { research_task: 9, reporting_task: 7 }, 42_900),
        fakeCase(0, 2, { research_task: 10, reporting_task: 8 }, 79_100),
        fakeCase(0, 3, { research_task: 9, reporting_task: 6.5 }, 52_000),
      ],
      tasks,
    );
    expect(crewaiTable(report, undefined, twoTaskCrew())).toBe(
      [
        '                                      Tasks Scores',
        '                                 (1-10 Higher is better)',
        '┏━━━━━━━━━━━━━━━━━━━━┯━━━━━━━┯━━━━━━━┯━━━━━━━┯━━━━━━━━━━━━┯━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓',
        '┃ Tasks/Crew/Agents  │ Run 1 │ Run 2 │ Run 3 │ Avg. Total │ Agents                      ┃',
        '┠────────────────────┼───────┼───────┼───────┼────────────┼─────────────────────────────┨',
        '┃ Task 1             │  9.0  │ 10.0  │  9.0  │    9.3     │ - AI Senior Data Researcher ┃',
        '┃                    │       │       │       │            │                             ┃',
        '┃ Task 2             │  7.0  │  8.0  │  6.5  │    7.2     │ - AI Reporting Analyst      ┃',
        '┃ Crew               │ 8.00  │ 9.00  │ 7.75  │    8.2     │                             ┃',
        '┃ Execution Time (s) │  42   │  79   │  52   │     57     │                             ┃',
        '┗━━━━━━━━━━━━━━━━━━━━┷━━━━━━━┷━━━━━━━┷━━━━━━━┷━━━━━━━━━━━━┷━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┛',
        '',
      ].join('\n'),
    );
  });

  it('shows - for a task with no score in a run, and averages the scores there are', () => {
    const report = fakeReport(
      [
        fakeCase(0, 1, { research_task: 8, reporting_task: undefined }, 1_000),
        fakeCase(0, 2, { research_task: 6, reporting_task: 9 }, 3_000),
      ],
      tasks,
    );
    const lines = crewaiTable(report).split('\n');
    expect(lines.find((l) => l.startsWith('┃ Task 2'))).toMatch(
      /┃ Task 2\s+│\s+-\s+│\s+9\.0\s+│\s+9\.0\s+│\s+┃/,
    );
    expect(lines.find((l) => l.startsWith('┃ Crew'))).toMatch(/┃ Crew\s+│ 8\.00\s+│ 7\.50\s+│\s+8\.0\s+│/);
  });

  it('rounds an exact half to the even digit, as Python formats it', () => {
    const report = fakeReport([fakeCase(0, 1, { a: 8.25 }, 0), fakeCase(0, 2, { a: 8.35 }, 0)], ['a']);
    const task = crewaiTable(report)
      .split('\n')
      .find((l) => l.startsWith('┃ Task 1'));
    expect(task).toMatch(/┃ Task 1\s+│\s+8\.2\s+│\s+8\.3\s+│\s+8\.3\s+│/);
  });

  it('makes a run column of each case × iteration, and gives each role the cases fill differently a line', () => {
    const report = fakeReport(
      [
        fakeCase(0, 1, { research_task: 9, reporting_task: 9 }, 1_000, { topic: 'AI' }),
        fakeCase(1, 1, { research_task: 7, reporting_task: 7 }, 1_000, { topic: 'ML' }),
      ],
      tasks,
    );
    const text = crewaiTable(report, 'quality', twoTaskCrew());
    expect(text).toContain('│ Run 1 │ Run 2 │ Avg. Total │');
    const rows = text.split('\n').slice(5, 8);
    expect(rows[0]).toMatch(/┃ Task 1 .*│ - AI Senior Data Researcher\s+┃$/);
    expect(rows[1]).toMatch(/┃\s+│\s+│\s+│\s+│ - ML Senior Data Researcher\s+┃$/);
  });

  it('reads the tasks in the order of the crew path its coverage lists when no crew is given', () => {
    const report = fakeReport([fakeCase(0, 1, { b: 5, a: 3 }, 0)], ['b', 'a']);
    const rows = crewaiTable(report).split('\n');
    expect(rows[5]).toMatch(/┃ Task 1\s+│\s+5\.0\s+│/);
    expect(rows[7]).toMatch(/┃ Task 2\s+│\s+3\.0\s+│/);
  });

  it('refuses a scorer the report does not hold, and a report with no node scorer', () => {
    const report = fakeReport([fakeCase(0, 1, { a: 5 }, 0)], ['a']);
    expect(() => crewaiTable(report, 'judge')).toThrow(
      /option "scorer" must be a scorer of the report \(quality\)/,
    );
    const runOnly = fakeReport([fakeCase(0, 1, { a: 5 }, 0)], ['a'], [{ name: 'quality', level: 'run' }]);
    expect(() => crewaiTable(runOnly)).toThrow(expect.objectContaining({ code: 'invalid_option' }));
  });
});
