import { ANSWERS_SCRIPT } from './script/answers.js';
import { API_SCRIPT } from './script/api.js';
import { BOOT_SCRIPT } from './script/boot.js';
import { CHECKPOINTS_SCRIPT } from './script/checkpoints.js';
import { COMPARE_SCRIPT } from './script/compare.js';
import { EVAL_REPORT_SCRIPT } from './script/eval-report.js';
import { EVALS_SCRIPT } from './script/evals.js';
import { FORK_SCRIPT } from './script/fork.js';
import { LINEAGE_SCRIPT } from './script/lineage.js';
import { RUN_PANE_SCRIPT } from './script/run-pane.js';
import { RUNS_SCRIPT } from './script/runs.js';
import { SERVED_SCRIPT } from './script/served.js';
import { START_SCRIPT } from './script/start.js';

/**
 * The studio's script, put together from its parts, beside the run view's own (which draws the open
 * run): it talks to the server's routes with the user's token, lists runs, opens one and follows its
 * events, and answers and starts runs through forms; it lists the open run's checkpoints, forks from
 * one, and shows two runs side by side; its evals page lists evaluation reports and opens one. Like the run view's, it builds every element
 * with `createElement` and sets text with `textContent`; what the server drew it takes from a parsed
 * page, whose scripts never run. Its text is fixed: the page's policy allows it by hash.
 */
export const STUDIO_SCRIPT = `
(() => {
  'use strict';
${API_SCRIPT}${RUNS_SCRIPT}${RUN_PANE_SCRIPT}${ANSWERS_SCRIPT}${START_SCRIPT}${SERVED_SCRIPT}${CHECKPOINTS_SCRIPT}${FORK_SCRIPT}${LINEAGE_SCRIPT}${COMPARE_SCRIPT}${EVALS_SCRIPT}${EVAL_REPORT_SCRIPT}${BOOT_SCRIPT}
})();
`;
