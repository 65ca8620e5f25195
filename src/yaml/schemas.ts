import { type core, z } from 'zod';
import { ConfigError } from '../errors.js';
import { describeValue, lineOf, type YamlPath, type YamlSource } from './yaml-source.js';

const text = z.string().regex(/\S/);
const names = z.array(text);
const count = z.int().min(0);
const positive = z.number().positive();

/** The keys of an agent in `agents.yaml`: the options of `Agent`, in snake_case. */
export const agentSchema = z.strictObject({
  role: text,
  goal: z.string().optional(),
  backstory: z.string().optional(),
  llm: text.optional(),
  tools: names.optional(),
  max_iter: z.int().min(1).optional(),
  max_retries: count.optional(),
  retry_delay_ms: count.optional(),
  timeout_ms: positive.optional(),
  max_rpm: positive.optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_output_tokens: z.int().min(1).optional(),
  stream: z.boolean().optional(),
  allow_delegation: z.boolean().optional(),
  memory: z.boolean().optional(),
  verbose: z.boolean().optional(),
  max_retry_limit: count.optional(),
  max_execution_time: positive.optional(),
  function_calling_llm: text.optional(),
  mcps: z.array(z.union([text, z.record(z.string(), z.unknown())])).optional(),
});

/** The keys of a task in `tasks.yaml`: the options of `Task` that YAML can hold, in snake_case. */
export const taskSchema = z.strictObject({
  description: text,
  expected_output: z.string().optional(),
  agent: text.optional(),
  context: names.optional(),
  output_schema: text.optional(),
  tools: names.optional(),
  max_retries: count.optional(),
  retry_delay_ms: count.optional(),
  timeout_ms: positive.optional(),
  human_input: z.boolean().optional(),
  markdown: z.boolean().optional(),
  output_file: text.optional(),
  create_directory: z.boolean().optional(),
  async_execution: z.boolean().optional(),
  guardrail: text.optional(),
});

/** An agent as `agents.yaml` defines it. */
export type AgentEntry = z.infer<typeof agentSchema>;
/** A task as `tasks.yaml` defines it. */
export type TaskEntry = z.infer<typeof taskSchema>;

/** What each key must be, as messages say it. */
const EXPECTED: Readonly<Record<string, string>> = {
  role: 'a non-empty string',
  goal: 'a string',
  backstory: 'a string',
  llm: 'a model name',
  tools: 'a list of tool names',
  max_iter: 'a whole number ≥ 1',
  max_retries: 'a whole number ≥ 0',
  max_retry_limit: 'a whole number ≥ 0',
  max_execution_time: 'a number of seconds > 0',
  function_calling_llm: 'a model name',
  mcps: 'a list of MCP servers: names of the mcps option, http(s) URLs, or servers written out',
  guardrail: 'a condition the output must meet, or the name of a guardrail',
  retry_delay_ms: 'a whole number of milliseconds ≥ 0',
  timeout_ms: 'a number of milliseconds > 0',
  max_rpm: 'a number > 0',
  temperature: 'a number from 0 to 2',
  max_output_tokens: 'a whole number ≥ 1',
  stream: 'true or false',
  allow_delegation: 'true or false',
  description: 'a non-empty string',
  expected_output: 'a string',
  agent: 'the name of an agent',
  context: 'a list of task names',
  output_schema: 'the name of a schema',
  human_input: 'true or false',
  memory: 'true or false',
  verbose: 'true or false',
  markdown: 'true or false',
  output_file: 'a file path',
  create_directory: 'true or false',
  async_execution: 'true or false',
};

/**
 * CrewAI keys statecrew refuses, and what to do instead: ignoring them would change what the crew
 * does (its agent could not run code or look things up, its output would lose its shape).
 */
const REFUSED: Readonly<Record<'agent' | 'task', Readonly<Record<string, string>>>> = {
  agent: {
    allow_code_execution: 'give the agent a tool that runs code',
    knowledge_sources: 'give the agent a tool that looks things up',
  },
  task: {
    output_json: 'use output_schema',
    output_pydantic: 'use output_schema',
    callback: "subscribe to the run's events$",
  },
};

/** CrewAI keys for features statecrew does not have whose loss leaves the crew's results as they are. */
const IGNORED: Readonly<Record<'agent' | 'task', Readonly<Record<string, string>>>> = {
  agent: { cache: 'tools run on every call; cache inside the tool if it needs to' },
  task: {},
};

/** A key of an entry that its schema does not know, found before the entry is checked. */
export interface UnknownKey {
  readonly kind: 'agent' | 'task';
  readonly entry: string;
  readonly key: string;
  readonly line: number;
  /** Why it is ignored, or the known key it looks like a typo of. */
  readonly message: string;
}

/**
 * The keys of `value` its schema does not know and statecrew does not refuse (CrewAI ignores keys
 * its models do not have, and so does `loadCrew` unless `strict`), and `value` without them.
 */
export function withoutUnknownKeys(
  source: YamlSource,
  kind: 'agent' | 'task',
  name: string,
  value: unknown,
): { value: unknown; unknown: UnknownKey[] } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { value, unknown: [] };
  const known = Object.keys((kind === 'agent' ? agentSchema : taskSchema).shape);
  const drop = Object.keys(value).filter((key) => !known.includes(key) && !Object.hasOwn(REFUSED[kind], key));
  if (drop.length === 0) return { value, unknown: [] };
  const kept = Object.fromEntries(Object.entries(value).filter(([key]) => !drop.includes(key)));
  const unknown = drop.map((key) => ({
    kind,
    entry: name,
    key,
    line: lineOf(source, [name, key], 'key'),
    message: ignoredMessage(kind, name, key, known),
  }));
  return { value: kept, unknown };
}

function ignoredMessage(kind: 'agent' | 'task', name: string, key: string, known: readonly string[]): string {
  const said = `key "${key}" of ${kind} "${name}"`;
  const why = IGNORED[kind][key];
  if (why !== undefined) return `${said} is a CrewAI key statecrew does not support (${why}); ignored`;
  const near = nearestKey(key, known);
  const hint = near === undefined ? '' : ` (did you mean "${near}"?)`;
  return `${said} is not a CrewAI key statecrew reads; ignored${hint}`;
}

/** The known key `key` looks like a typo of: at most two edits away, and fewer than half its length. */
function nearestKey(key: string, known: readonly string[]): string | undefined {
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(key, candidate);
    if (distance > 2 || distance * 2 >= key.length) continue;
    if (best === undefined || distance < best.distance) best = { key: candidate, distance };
  }
  return best?.key;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] as number[];
      const up = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

function valueAt(value: unknown, path: YamlPath): unknown {
  let at = value;
  for (const step of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string | number, unknown>)[step];
  }
  return at;
}

/**
 * Validates one entry against its schema; the first issue in file order throws a `ConfigError` that
 * names the line and the key.
 */
export function parseEntry<S extends z.ZodType>(
  source: YamlSource,
  kind: 'agent' | 'task',
  name: string,
  value: unknown,
  schema: S,
): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = result.error.issues
    .flatMap((issue) => issueErrors(source, kind, name, value, issue))
    .sort((a, b) => Number(a.details.line) - Number(b.details.line));
  throw errors[0] as ConfigError;
}

function issueErrors(
  source: YamlSource,
  kind: 'agent' | 'task',
  name: string,
  value: unknown,
  issue: core.$ZodIssue,
): ConfigError[] {
  const entry = `${kind} "${name}"`;
  const keys = Object.keys((kind === 'agent' ? agentSchema : taskSchema).shape).join(', ');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const hint = REFUSED[kind][key] ?? IGNORED[kind][key];
      const near = nearestKey(key, Object.keys((kind === 'agent' ? agentSchema : taskSchema).shape));
      const what =
        hint === undefined
          ? `${entry} has an unknown key "${key}"${near === undefined ? '' : ` (did you mean "${near}"?)`}; the keys of a${kind === 'agent' ? 'n' : ''} ${kind} are: ${keys}`
          : `${entry} sets "${key}", a CrewAI key statecrew does not support: ${hint}`;
      return new ConfigError(source.file, lineOf(source, [name, key], 'key'), what, key);
    });
  }
  const [field, index] = issue.path;
  if (typeof field !== 'string') {
    const what = `${entry} must be a mapping of its keys (${keys}), got ${describeValue(value)}`;
    return [new ConfigError(source.file, lineOf(source, [name], 'key'), what, name)];
  }
  const got = valueAt(value, issue.path.slice(0, 2) as YamlPath);
  const expected = EXPECTED[field] ?? issue.message;
  const path: YamlPath = typeof index === 'number' ? [name, field, index] : [name, field];
  const what =
    got === undefined
      ? `${entry} has no ${field}, which it needs (${expected})`
      : typeof index === 'number'
        ? `${entry}: item ${index + 1} of ${field} must be a name, got ${describeValue(got)}`
        : `${entry}: ${field} must be ${expected}, got ${describeValue(got)}`;
  return [new ConfigError(source.file, lineOf(source, path), what, field)];
}
