import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, Crew, isStatecrewError, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { taskLine } from '../helpers.js';

let dir: string;
let base: string;
let outside: string;
beforeEach(async () => {
  // Its real path: the messages name where a link really leads.
  dir = await realpath(await mkdtemp(join(tmpdir(), 'statecrew-output-links-')));
  base = join(dir, 'base');
  outside = join(dir, 'outside');
  await mkdir(base);
  await mkdir(outside);
  // The crew's folder holds a link to a folder beside it.
  await symlink('../outside', join(base, 'link'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const llm = () =>
  createScriptedModel((request) => `notes on ${taskLine(request.prompt).slice('Task: '.length)}`);

/** A crew of one task writing to `outputFile`, in `base`. */
function crewWriting(outputFile: string, model = llm()) {
  const agent = new Agent({ role: 'Writer', llm: model });
  return new Crew({
    tasks: [new Task({ name: 'write', description: 'Write', agent, outputFile })],
    baseDir: base,
  });
}

/** What `make` threw, as the refusal of an output file it must be. */
function refusal(make: () => unknown): { message: string } {
  try {
    make();
  } catch (error) {
    if (isStatecrewError(error, 'output_file_failed')) return error;
    throw error;
  }
  throw new Error('nothing was refused');
}

describe('an output file and symbolic links', () => {
  it('refuses a path through a linked folder that leads outside baseDir, and writes nothing there', async () => {
    const error = refusal(() => crewWriting('link/esc.md'));
    expect(error.message).toContain(`${join(outside, 'esc.md')} through a symbolic link`);
    expect(await readdir(outside)).toEqual([]);
  });

  it('refuses at kickoff, before any call, a placeholder whose value leads through the link', async () => {
    const model = llm();
    const agent = new Agent({ role: 'Writer', llm: model });
    const task = new Task({ name: 'write', description: 'Write', agent, outputFile: 'notes/{name}.md' });
    const crew = new Crew({ tasks: [task], baseDir: base });
    await expect(crew.kickoff({ inputs: { name: '../link/x' } })).rejects.toMatchObject({
      code: 'output_file_failed',
      details: { task: 'write', path: 'notes/{name}.md' },
    });
    expect(model.calls).toHaveLength(0);
    expect(await readdir(outside)).toEqual([]);
  });

  it('refuses a file that is itself a link out of baseDir, to a file or to nothing yet', async () => {
    await writeFile(join(outside, 'kept.md'), 'not to be overwritten');
    await symlink('../outside/kept.md', join(base, 'kept.md'));
    await symlink(join(outside, 'new.md'), join(base, 'new.md'));
    expect(refusal(() => crewWriting('kept.md')).message).toContain(join(outside, 'kept.md'));
    expect(refusal(() => crewWriting('new.md')).message).toContain(join(outside, 'new.md'));
    expect(await readdir(outside)).toEqual(['kept.md']);
  });

  it('fails the task when a link out of baseDir appears after the crew was checked, writing nothing outside', async () => {
    const crew = crewWriting('late/x.md');
    await symlink('../outside', join(base, 'late'));
    const out = await crew.kickoff();
    expect(out.status).toBe('failed');
    expect(out.failures.write).toMatchObject({ code: 'output_file_failed', retryable: false });
    expect(out.failures.write?.message).toContain('outside the crew');
    expect(await readdir(outside)).toEqual([]);
  });

  it('accepts folders whose names start with or hold two dots, and a link that stays inside', async () => {
    await mkdir(join(base, 'real'));
    await symlink('real', join(base, 'alias'));
    for (const path of ['..notes/a.md', 'a..b/b.md', 'alias/c.md']) {
      const out = await crewWriting(path).kickoff();
      expect(out.status, path).toBe('completed');
    }
    expect(await readFile(join(base, '..notes', 'a.md'), 'utf8')).toBe('notes on Write');
    expect(await readFile(join(base, 'a..b', 'b.md'), 'utf8')).toBe('notes on Write');
    expect(await readFile(join(base, 'real', 'c.md'), 'utf8')).toBe('notes on Write');
  });
});
