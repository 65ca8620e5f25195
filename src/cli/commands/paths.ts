import { loadTarget } from '../load-target.js';
import type { CliIo } from '../output.js';

/** Options of `statecrew paths`. */
export interface PathsCommandOptions {
  export?: string | undefined;
  /** Which crew of a YAML folder whose `crew.ts` exports several (`crews`). */
  crew?: string | undefined;
  json?: boolean | undefined;
}

/**
 * `statecrew paths <file>`: every path through the crew or flow and whether termination is proven.
 * Exit code 1 when the analysis finds an unreachable step or task, an unused route or a dead end, or
 * cannot prove termination; 0 otherwise.
 */
export async function pathsCommand(file: string, options: PathsCommandOptions, io: CliIo): Promise<number> {
  const target = await loadTarget(file, options.export, options.crew);
  if (target.kind === 'flow') {
    const analysis = target.flow.analyze();
    const problems = [
      ...analysis.unreachableSteps.map((s) => `unreachable step: ${s}`),
      ...analysis.unusedRoutes.map((r) => `unused route: ${r}`),
      ...analysis.deadEnds.map(
        (d) => `dead end: ${d.step} waits for ${d.missing.join(', ')} after ${d.trail.join(' → ')}`,
      ),
      ...(analysis.terminates ? [] : ['termination not proven: a cycle can repeat forever']),
    ];
    if (options.json === true) io.stdout.write(`${JSON.stringify(analysis, null, 2)}\n`);
    else {
      const lines = [
        `flow ${target.name}: ${analysis.paths.length} paths, termination ${analysis.terminates ? 'proven' : 'NOT proven'}`,
      ];
      for (const path of analysis.paths) {
        const routes = Object.entries(path.routes).map(
          ([router, label]) => `${router}=${[label].flat().join('/')}`,
        );
        lines.push(
          `  ${path.outcome === 'completed' ? '✔' : '✖'} ${path.trail.join(' → ')}${routes.length === 0 ? '' : `  [${routes.join(', ')}]`}`,
        );
      }
      if (analysis.stats.truncated)
        lines.push(`  … more paths (listing stopped at ${analysis.paths.length})`);
      lines.push(...problems.map((p) => `  ${p}`));
      io.stdout.write(`${lines.join('\n')}\n`);
    }
    return problems.length === 0 ? 0 : 1;
  }
  const analysis = target.crew.analyze();
  const problems = [
    ...analysis.unreachable.map((t) => `unreachable task: ${t}`),
    ...(analysis.cycle === undefined ? [] : [`cycle: ${analysis.cycle.join(' → ')}`]),
  ];
  if (options.json === true) io.stdout.write(`${JSON.stringify(analysis, null, 2)}\n`);
  else {
    const lines = [
      `crew ${target.name} (${analysis.process}): ${analysis.paths.length} paths, termination ${analysis.terminates ? 'proven' : 'NOT proven'}`,
    ];
    for (const path of analysis.paths) {
      lines.push(`  ${path.outcome === 'completed' ? '✔' : '✖'} ${path.states.join(' → ')}`);
    }
    lines.push(`  critical path: ${analysis.criticalPath.join(' → ') || '(none)'}`);
    lines.push(...problems.map((p) => `  ${p}`));
    io.stdout.write(`${lines.join('\n')}\n`);
  }
  return problems.length === 0 && analysis.terminates ? 0 : 1;
}
