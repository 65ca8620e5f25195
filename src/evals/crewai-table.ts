import { InvalidOptionError } from '../errors.js';
import type { Crew } from '../runtime/crew/crew.js';
import { interpolate } from '../runtime/crew/interpolate.js';
import type { EvalCaseResult, EvalReport } from './types.js';

/** What {@link crewaiTable} reads of the crew, when given: its tasks in order and their agents' roles. */
export type CrewaiTableCrew = Pick<Crew, 'tasks' | 'nodeIdOf'>;

/**
 * CrewAI's `crewai test` table, as plain text in the box of CrewAI's table (rich's `HEAVY_EDGE`, no
 * colours): a row per task (`Task 1`, … in the crew's order) with its score on the judge's scale (the
 * score's `value`, else `score × 10`) in each run (`Run 1`, …), the average and the task's agent
 * (`- <role>`); then `Crew` (each run's mean over its tasks, and the mean of the tasks' averages) and
 * `Execution Time (s)` (each run's time and their mean, in whole seconds cut as CrewAI cuts them).
 * Reads the node scores of `scorer` (default: the report's first node scorer). A run column is one
 * case × iteration, in the report's order (case 1 iterations 1…n, then case 2, …); a task with no
 * score in a run (it failed, or its score is an error) shows `-`. The agents come from `crew` (each
 * role filled with the cases' inputs; roles that differ between cases each get a line); without it,
 * the tasks are read from the report's coverage and the Agents column stays empty.
 *
 * @example
 * const report = await evaluate({ target: crew, dataset: [{ inputs }], scorers: [crewaiTestScorer({ model })], iterations: 3 });
 * console.log(crewaiTable(report, 'quality', crew));
 */
export function crewaiTable(report: EvalReport, scorer?: string, crew?: CrewaiTableCrew): string {
  const name = scorerOf(report, scorer);
  const tasks = crew === undefined ? tasksOf(report, name) : crewTasks(crew, report.cases);
  const runs = report.cases;
  const rows: string[][] = [];
  const averages: (number | undefined)[] = [];
  tasks.forEach((task, index) => {
    const scores = runs.map((run) => taskScore(run, name, task.name));
    const average = mean(scores);
    averages.push(average);
    const [first = '', ...others] = task.agents.map((agent) => `- ${agent}`);
    rows.push([`Task ${index + 1}`, ...scores.map((s) => fixed(s, 1)), fixed(average, 1), first]);
    for (const agent of others) rows.push(['', ...runs.map(() => ''), '', agent]);
    if (index < tasks.length - 1) rows.push(['', ...runs.map(() => ''), '', '']);
  });
  const crewScores = runs.map((run) => mean(tasks.map((task) => taskScore(run, name, task.name))));
  rows.push(['Crew', ...crewScores.map((s) => fixed(s, 2)), fixed(mean(averages), 1), '']);
  const seconds = runs.map((run) => Math.trunc(run.timeMs / 1000));
  const meanSeconds = seconds.length === 0 ? 0 : Math.trunc(sum(seconds) / seconds.length);
  rows.push(['Execution Time (s)', ...seconds.map(String), String(meanSeconds), '']);
  const header = ['Tasks/Crew/Agents', ...runs.map((_, i) => `Run ${i + 1}`), 'Avg. Total', 'Agents'];
  const align: Align[] = ['left', ...runs.map((): Align => 'center'), 'center', 'left'];
  return boxTable(['Tasks Scores', '(1-10 Higher is better)'], header, rows, align);
}

/** The scorer the table reads: `given` (one of the report's), else the report's first node scorer. */
function scorerOf(report: EvalReport, given: string | undefined): string {
  const names = report.scorers.map((s) => s.name);
  if (given !== undefined) {
    if (names.includes(given)) return given;
    throw new InvalidOptionError(
      'crewaiTable',
      'scorer',
      `a scorer of the report (${names.join(', ')})`,
      given,
    );
  }
  const node = report.scorers.find((s) => s.level === 'node');
  if (node !== undefined) return node.name;
  throw new InvalidOptionError(
    'crewaiTable',
    'scorer',
    'a report with a node scorer (one that scores each task, as crewaiTestScorer does)',
    names,
  );
}

/** A row of the table: the task's node name and its agents' roles. */
interface TaskRow {
  name: string;
  agents: string[];
}

/** The crew's tasks in order, each with its agent's role as each case's inputs fill it (distinct ones). */
function crewTasks(crew: CrewaiTableCrew, cases: readonly EvalCaseResult[]): TaskRow[] {
  return crew.tasks.map((task, index) => {
    const role = task.agent?.role;
    const roles = role === undefined ? [] : cases.map((c) => interpolate(role, c.inputs).trim());
    return { name: crew.nodeIdOf(task) ?? `task-${index + 1}`, agents: [...new Set(roles)] };
  });
}

/**
 * The tasks as the report knows them: in order along the crew's path its coverage lists, else in the
 * order the scorer's summary first met them.
 */
function tasksOf(report: EvalReport, scorer: string): TaskRow[] {
  const { paths } = report.coverage;
  const path = report.coverage.kind === 'crew' ? (paths.covered[0] ?? paths.uncovered[0]) : undefined;
  const scored = Object.keys(report.summary.scorers[scorer]?.nodes ?? {});
  const names = path === undefined || path === '' ? scored : path.split(' → ');
  return names.map((name) => ({ name, agents: [] }));
}

/** A task's score in a run on the judge's scale; undefined when it has none. */
function taskScore(run: EvalCaseResult, scorer: string, task: string): number | undefined {
  const score = run.scores[scorer]?.nodes?.[task];
  if (score === undefined || score.error !== undefined) return undefined;
  return score.value ?? score.score * 10;
}

const sum = (values: readonly number[]) => values.reduce((total, v) => total + v, 0);

/** The mean of the values known; undefined when none is. */
function mean(values: readonly (number | undefined)[]): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length === 0 ? undefined : sum(known) / known.length;
}

/**
 * A number with `digits` decimals as Python's `f"{x:.1f}"` writes it (an exact half rounds to the even
 * digit: 8.25 → 8.2, where `toFixed` gives 8.3); `-` for none.
 */
function fixed(value: number | undefined, digits: number): string {
  if (value === undefined) return '-';
  const exact = value.toFixed(60);
  const point = exact.indexOf('.');
  const kept = exact.slice(0, point + digits + 1);
  const rest = exact.slice(point + digits + 1);
  const lastDigit = Number(kept.at(-1));
  if (/^50*$/.test(rest) && lastDigit % 2 === 0) return digits === 0 ? kept.slice(0, -1) : kept;
  return value.toFixed(digits);
}

type Align = 'left' | 'center';

/** `text` in `width` columns: left-aligned, or centred with the odd space on the right (as rich does). */
function padTo(text: string, width: number, align: Align): string {
  const excess = width - text.length;
  if (align === 'left') return text + ' '.repeat(excess);
  const left = Math.floor(excess / 2);
  return ' '.repeat(left) + text + ' '.repeat(excess - left);
}

/** The table in rich's `HEAVY_EDGE` box, its title lines centred above it. */
function boxTable(title: readonly string[], header: string[], rows: string[][], align: Align[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const rule = (left: string, fill: string, cross: string, right: string) =>
    left + widths.map((w) => fill.repeat(w + 2)).join(cross) + right;
  const line = (cells: string[]) =>
    `┃${cells.map((cell, i) => ` ${padTo(cell, widths[i] ?? 0, align[i] ?? 'left')} `).join('│')}┃`;
  const tableWidth = sum(widths) + widths.length * 3 + 1;
  const titled = title.map((t) => padTo(t, tableWidth, 'center').trimEnd());
  const lines = [
    ...titled,
    rule('┏', '━', '┯', '┓'),
    line(header),
    rule('┠', '─', '┼', '┨'),
    ...rows.map(line),
    rule('┗', '━', '┷', '┛'),
  ];
  return `${lines.join('\n')}\n`;
}
