import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, cli, fixture } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-words-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('what the CLI says names its own flags and folders', { timeout: CLI_TIMEOUT }, () => {
  it('names a YAML crew after its folder, and a CrewAI project after the folder holding config/', async () => {
    const store = `sqlite:${join(cwd, 'names.db')}`;
    const flat = await cli(['run', fixture('yaml-crew'), '--input', 'topic=AI', '--store', store], { cwd });
    expect(flat.code).toBe(0);
    const project = await cli(['run', fixture('crewai-project'), '--input', 'topic=AI', '--store', store], {
      cwd,
    });
    expect(project.code).toBe(0);
    const runs = await cli(['runs', '--json', '--store', store], { cwd });
    const names = (JSON.parse(runs.stdout) as { name: string }[]).map((r) => r.name).sort();
    expect(names).toEqual(['crewai-project', 'yaml-crew']);
  });

  it('refuses unfilled placeholders naming --input and --allow-missing-inputs, not strictInputs', async () => {
    const ran = await cli(['run', fixture('crew.ts'), '--store', 'memory'], { cwd });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(
      'statecrew: Crew "research": no input fills {topic} in task "research" description, task "write" description, agent "Researcher" goal: give it with --input topic=…, or run with --allow-missing-inputs to send the braces as written (missing_input)\n',
    );
  });

  it('warns of them under --allow-missing-inputs naming the flags, not strictInputs', async () => {
    const ran = await cli(['run', fixture('crew.ts'), '--allow-missing-inputs', '--store', 'memory'], {
      cwd,
    });
    expect(ran.code).toBe(0);
    const warning = ran.stdout.split('\n').find((line) => line.startsWith('warning:'));
    expect(warning).toBe(
      'warning: No input fills {topic} in task "research" description, task "write" description, agent "Researcher" goal: sent to the model as written (give it with --input topic=…; without --allow-missing-inputs such a run is refused) (missing_input)',
    );
  });
});
