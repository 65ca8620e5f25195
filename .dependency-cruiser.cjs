/**
 * The layers of `src/`, as an allow-list: each folder names what it may import (type-only imports
 * included), and any import no rule allows fails `npm test`. Imports point one way: the surfaces
 * (cli, serve, mcp, view, otel, yaml, queue) → the runtime (the kernel `run/`, then `crew/`,
 * `processes/` and `flow/`, which never import each other's kind) → actors → machines, and everything
 * may use the shared leaves (types, errors, process-wide values, options). No file cycle is allowed, types included.
 */

/** The leaves every layer may use. */
const SHARED = ['^src/types\\.ts$', '^src/errors\\.ts$', '^src/error-codes\\.ts$', '^src/process-wide\\.ts$'];
/** Node's own modules and the npm packages (which package where: see the rules below). */
const OUTSIDE = { dependencyTypesNot: ['local', 'localmodule', 'aliased-subpath-import'] };

/** `from` (a path pattern) may import `to` (path patterns) besides the shared leaves and itself. */
const allow = (comment, from, to) => ({
  comment,
  from: { path: from },
  to: { path: [...to, ...SHARED, `${from}[^/]*`] },
});

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'Files never import each other in a loop, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'pure-machines',
      comment: 'Machines are pure: of the packages they use xstate alone, never Node.',
      severity: 'error',
      from: { path: '^src/machines/' },
      to: {
        dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-peer', 'npm-optional'],
        pathNot: 'node_modules/xstate/',
      },
    },
  ],
  allowedSeverity: 'error',
  allowed: [
    { comment: 'Node and npm packages (the forbidden rules narrow them)', from: {}, to: OUTSIDE },
    allow('The shared leaves use each other only', '^src/(types|errors|error-codes)\\.ts$', []),
    allow('Options: zod and the shared leaves', '^src/options/', []),
    allow('Machines import only each other', '^src/machines/', ['^src/machines/']),
    allow('Models: the model seam', '^src/models/', ['^src/options/']),
    allow('Stores: behind the Store interface', '^src/stores/', ['^src/options/']),
    allow('Actors do work for the machines', '^src/actors/', [
      '^src/machines/',
      '^src/models/',
      '^src/options/',
    ]),
    allow("Engine: the runtime's helpers", '^src/runtime/engine/', [
      '^src/actors/',
      '^src/machines/',
      '^src/models/',
    ]),
    allow('Durable: owners, leases, runners, kept events', '^src/runtime/durable/', [
      '^src/runtime/engine/',
      '^src/runtime/run/run-events\\.ts$',
      '^src/stores/store\\.ts$',
      '^src/options/',
    ]),
    allow('The run kernel', '^src/runtime/run/', [
      '^src/runtime/durable/',
      '^src/runtime/engine/',
      '^src/actors/',
      '^src/machines/',
      '^src/stores/store\\.ts$',
    ]),
    allow('Crews: built on the kernel, run by the processes', '^src/runtime/crew/', [
      '^src/runtime/run/',
      '^src/runtime/durable/',
      '^src/runtime/engine/',
      '^src/runtime/process(-shape)?\\.ts$',
      '^src/runtime/processes/registry\\.ts$',
      '^src/actors/',
      '^src/machines/',
      '^src/models/',
      '^src/options/',
      '^src/stores/',
    ]),
    allow('Processes: one plug-in per crew process', '^src/runtime/(processes/|process(-shape)?\\.ts$)', [
      '^src/runtime/processes/',
      '^src/runtime/process(-shape)?\\.ts$',
      '^src/runtime/crew/',
      '^src/runtime/run/',
      '^src/runtime/engine/',
      '^src/actors/',
      '^src/machines/',
      '^src/models/',
    ]),
    allow('Flows: built on the kernel, never on crews', '^src/runtime/flow/', [
      '^src/runtime/run/',
      '^src/runtime/durable/',
      '^src/runtime/engine/',
      '^src/actors/',
      '^src/machines/',
      '^src/options/',
      '^src/stores/store\\.ts$',
    ]),
    allow("History: a run's checkpoints, forks and diffs, over both kinds", '^src/runtime/history/', [
      '^src/runtime/crew/',
      '^src/runtime/flow/',
      '^src/runtime/run/',
      '^src/runtime/durable/',
      '^src/runtime/engine/',
      '^src/options/',
      '^src/stores/store\\.ts$',
    ]),
    allow(
      'What a definition takes as input, and which kind it is, for the surfaces',
      '^src/runtime/(input-schema|definition-kind)\\.ts$',
      ['^src/runtime/crew/', '^src/runtime/flow/'],
    ),
    allow('Queue: whole runs and conversations through its own interfaces', '^src/queue/', [
      '^src/runtime/durable/',
      '^src/actors/',
      '^src/machines/',
      '^src/options/',
      '^src/stores/store\\.ts$',
    ]),
    // An agent's `mcps:` loads the MCP code only when a run opens the server (a dynamic import).
    allow('YAML crews', '^src/yaml/', [
      '^src/runtime/crew/',
      '^src/models/',
      '^src/mcp/(options|server)\\.ts$',
    ]),
    allow('MCP: tools from servers, crews and flows as tools', '^src/mcp/', [
      '^src/runtime/',
      '^src/machines/',
      '^src/options/',
      '^src/stores/',
    ]),
    allow('OpenTelemetry', '^src/otel', ['^src/otel/', '^src/runtime/crew/', '^src/models/']),
    allow('Evals: datasets, scorers, reports and coverage over crews and flows', '^src/evals/', [
      '^src/machines/',
      '^src/runtime/',
      '^src/models/',
      '^src/options/',
      '^src/stores/store\\.ts$',
      '^src/stores/memory\\.ts$',
    ]),
    allow('The run view', '^src/view/', [
      '^src/evals/types\\.ts$',
      '^src/runtime/',
      '^src/actors/',
      '^src/machines/',
      '^src/models/',
      '^src/options/',
      '^src/stores/',
    ]),
    allow('The server', '^src/serve/', [
      '^src/evals/',
      '^src/runtime/',
      '^src/machines/',
      '^src/options/',
      '^src/stores/',
      '^src/queue/',
      '^src/view/',
    ]),
    allow('The CLI: every surface', '^src/cli/', ['^src/']),
    allow('Entry points: what a user imports', '^src/(index|testing|ai-sdk)\\.ts$', [
      '^src/(runtime|actors|machines|models|stores|options|yaml|evals)/',
    ]),
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(test|bench|scripts|examples)/' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
