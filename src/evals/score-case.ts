import type { Usage } from '../types.js';
import type { EvalSpend } from './eval-budget.js';
import { meanOf } from './percentiles.js';
import type { NodeOutput, RunOutcome } from './run-case.js';
import { failedScore, runScorer } from './to-scorer.js';
import type { CaseScore, EvalCase, Score, ScoreInput, Scorer } from './types.js';

/** What scoring one run needs: the evaluation's signal and spend, and where the judges' usage goes. */
export interface ScoringContext {
  signal: AbortSignal;
  spend: EvalSpend;
  /** Told what each judge call spent (the case's `usage.judge`). */
  onJudge(usage: Usage): void;
}

/** The run scored by each scorer, by its name, one after another (a node scorer node after node). */
export async function scoreRun(
  scorers: readonly Scorer[],
  outcome: RunOutcome & { run: ScoreInput['run'] },
  evalCase: EvalCase,
  context: ScoringContext,
): Promise<Record<string, CaseScore>> {
  const scores: Record<string, CaseScore> = {};
  const base = baseInput(outcome, evalCase, context);
  for (const scorer of scorers) {
    scores[scorer.name] =
      (scorer.level ?? 'run') === 'node'
        ? await scoreNodes(scorer, outcome.nodes, base, evalCase)
        : await runScorer(scorer, { ...base, output: outcome.output, text: textOf(outcome.output) });
  }
  return scores;
}

type BaseInput = Omit<ScoreInput, 'output' | 'text'>;

/** What every scorer of one run gets, but the output. */
function baseInput(
  outcome: RunOutcome & { run: ScoreInput['run'] },
  evalCase: EvalCase,
  context: ScoringContext,
): BaseInput {
  return {
    expected: evalCase.expected,
    inputs: evalCase.inputs,
    run: outcome.run,
    signal: context.signal,
    // The call that crosses the limit is counted and its score kept, as a run's is; a call made
    // when the budget was spent already is counted, and refused.
    spend(usage) {
      const refusal = context.spend.exceeded();
      const copy: Usage = { ...usage };
      context.spend.add(copy);
      context.onJudge(copy);
      if (refusal !== undefined) throw refusal;
    },
    beforeCall: () => context.spend.guard(),
  };
}

/** A node scorer's verdict: each completed task or step (only `scorer.nodes` when given), and their mean. */
async function scoreNodes(
  scorer: Scorer,
  nodes: readonly NodeOutput[],
  base: BaseInput,
  evalCase: EvalCase,
): Promise<CaseScore> {
  const picked = scorer.nodes === undefined ? nodes : nodes.filter((n) => scorer.nodes?.includes(n.name));
  if (picked.length === 0) return failedScore(scorer.name, 'the run completed no task or step it scores');
  const byNode: Record<string, Score> = {};
  for (const node of picked) {
    byNode[node.name] = await runScorer(scorer, {
      ...base,
      output: node.output,
      text: textOf(node.output),
      expected: evalCase.expectedOutputs?.[node.name],
      node: node.name,
      ...(node.task === undefined ? {} : { task: node.task }),
    });
  }
  return { score: meanOf(Object.values(byNode).map((s) => s.score)), nodes: byNode };
}

/** An output as text: a string as it is, anything else as JSON (`undefined` as empty text). */
export function textOf(output: unknown): string {
  if (typeof output === 'string') return output;
  try {
    return JSON.stringify(output) ?? '';
  } catch {
    return String(output);
  }
}
