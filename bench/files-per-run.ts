/**
 * Which source files one run passes through: the files whose code ran during a crew kickoff and a flow
 * run, and nothing that only ran when the modules loaded. Both runs are warmed up once, then V8's
 * precise coverage is reset and one more run of each is counted.
 *
 * Run: `NODE_V8_COVERAGE=$(mktemp -d) npx tsx bench/files-per-run.ts` (the folder keeps V8's raw
 * reports; the counts and lists are printed).
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { takeCoverage } from 'node:v8';
import { Agent, Crew, createFlow, MemoryStore, Task } from '../src/index.js';

interface ScriptCoverage {
  url: string;
  functions: { functionName: string; ranges: { count: number }[] }[];
}

/** The source files (of `src/`) whose functions ran since the last reset, from V8's newest report. */
function filesRun(dir: string): string[] {
  const reports = readdirSync(dir).filter((name) => name.endsWith('.json'));
  const files = new Set<string>();
  for (const name of reports) {
    const { result } = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { result: ScriptCoverage[] };
    for (const script of result) {
      const at = script.url.indexOf('/src/');
      if (at < 0 || !script.url.endsWith('.ts')) continue;
      const ran = script.functions.some((f) => f.functionName !== '' && f.ranges.some((r) => r.count > 0));
      if (ran) files.add(script.url.slice(at + 1));
    }
    rmSync(join(dir, name));
  }
  return [...files].sort();
}

function crewOf(store: MemoryStore): Crew {
  const writer = new Agent({ role: 'Writer', llm: () => 'text' });
  return new Crew({
    store,
    tasks: [
      new Task({ name: 'outline', description: 'Outline {topic}', agent: writer }),
      new Task({ name: 'draft', description: 'Draft it', agent: writer }),
    ],
  });
}

function flowOf(store: MemoryStore) {
  return createFlow({ name: 'review', initialState: { score: 0 }, store })
    .start('draft', () => 'v1')
    .router('grade', 'draft', () => 'approve', { routes: ['approve', 'revise'] })
    .listen('publish', 'approve', () => 'ok');
}

async function main(): Promise<void> {
  const dir = process.env.NODE_V8_COVERAGE;
  if (dir === undefined) throw new Error('Set NODE_V8_COVERAGE to a folder (see the header).');
  const store = new MemoryStore();
  await crewOf(store).kickoff({ inputs: { topic: 'warm-up' } });
  await flowOf(store).kickoff();
  takeCoverage();
  filesRun(dir);
  await crewOf(store).kickoff({ inputs: { topic: 'AI' } });
  takeCoverage();
  const crew = filesRun(dir);
  await flowOf(store).kickoff();
  takeCoverage();
  const flow = filesRun(dir);
  console.log(`crew kickoff (sequential, 2 tasks, memory store): ${crew.length} files`);
  console.log(crew.map((f) => `  ${f}`).join('\n'));
  console.log(`flow run (start, router, listener, memory store): ${flow.length} files`);
  console.log(flow.map((f) => `  ${f}`).join('\n'));
}

void main();
