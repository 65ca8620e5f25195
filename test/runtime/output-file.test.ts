import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Crew, MemoryStore, OutputFileError, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { taskLine } from '../helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'statecrew-output-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const answers = createScriptedModel((request) => {
  const task = taskLine(request.prompt).slice('Task: '.length);
  return task.startsWith('Report') ? '{"title":"AI","pages":3}' : `notes on ${task}`;
});
const writer = new Agent({ role: 'Writer', llm: answers });

function thrown(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('a task output file', () => {
  it('writes the raw output, placeholders filled and folders created, relative to baseDir', async () => {
    const task = new Task({
      name: 'research',
      description: 'Research {topic}',
      agent: writer,
      outputFile: 'out/{topic}/notes.md',
    });
    const out = await new Crew({ tasks: [task], baseDir: dir }).kickoff({ inputs: { topic: 'ai' } });
    expect(out.status).toBe('completed');
    expect(await readFile(join(dir, 'out', 'ai', 'notes.md'), 'utf8')).toBe('notes on Research ai');
  });

  it('writes a structured output as pretty JSON', async () => {
    const task = new Task({
      name: 'report',
      description: 'Report',
      agent: writer,
      outputSchema: z.object({ title: z.string(), pages: z.number() }),
      outputFile: 'report.json',
    });
    await new Crew({ tasks: [task], baseDir: dir }).kickoff();
    const text = await readFile(join(dir, 'report.json'), 'utf8');
    expect(text).toBe(`${JSON.stringify({ title: 'AI', pages: 3 }, null, 2)}\n`);
  });

  it('refuses at construction a path without placeholders that leaves baseDir', () => {
    const task = new Task({ name: 'leak', description: 'Leak', agent: writer, outputFile: '../leak.md' });
    const error = thrown(() => new Crew({ tasks: [task], baseDir: dir }));
    expect(error).toBeInstanceOf(OutputFileError);
    expect((error as OutputFileError).code).toBe('output_file_failed');
    expect((error as OutputFileError).message).toMatch(
      /Task "leak" cannot write its output file "..\/leak.md"/,
    );
    const absolute = new Task({ description: 'Leak', agent: writer, outputFile: join(tmpdir(), 'x.md') });
    expect(thrown(() => new Crew({ tasks: [absolute], baseDir: dir }))).toBeInstanceOf(OutputFileError);
  });

  it('refuses at construction a path whose braces hold no placeholder name, and takes one whose braces do', async () => {
    for (const outputFile of ['{invalid-name}/output.txt', 'out/{}.md', 'out/{{topic}}.md']) {
      const task = new Task({ name: 'report', description: 'Report', agent: writer, outputFile });
      const error = thrown(() => new Crew({ tasks: [task], baseDir: dir }));
      expect(error).toBeInstanceOf(OutputFileError);
      expect((error as OutputFileError).message).toMatch(
        /Task "report" cannot write its output file .*is not a placeholder/,
      );
    }
    const named = new Task({
      name: 'notes',
      description: 'Notes',
      agent: writer,
      outputFile: 'out/{topic_1}.md',
    });
    await new Crew({ tasks: [named], baseDir: dir }).kickoff({ inputs: { topic_1: 'ai' } });
    expect(await readdir(join(dir, 'out'))).toEqual(['ai.md']);
  });

  it('refuses at kickoff, before any call, a path whose inputs make it leave baseDir', async () => {
    const llm = createScriptedModel(() => 'never');
    const task = new Task({
      name: 'sneaky',
      description: 'Write',
      agent: new Agent({ role: 'Writer', llm }),
      outputFile: '{folder}/notes.md',
    });
    const crew = new Crew({ tasks: [task], baseDir: dir });
    await expect(crew.kickoff({ inputs: { folder: '../elsewhere' } })).rejects.toMatchObject({
      code: 'output_file_failed',
      details: { task: 'sneaky', path: '{folder}/notes.md' },
    });
    expect(llm.calls).toHaveLength(0);
  });

  it('names a path placeholder no input fills among the missing inputs, and refuses it when strict', async () => {
    const llm = createScriptedModel(() => 'notes');
    const task = new Task({
      name: 'notes',
      description: 'Write',
      agent: new Agent({ role: 'Writer', llm }),
      outputFile: 'notes-{day}.md',
    });
    const crew = new Crew({ tasks: [task], baseDir: dir });
    const out = await crew.kickoff();
    expect(out.metadata.missingInputs).toEqual([
      { name: 'day', where: [{ task: 'notes', field: 'outputFile' }] },
    ]);
    await expect(crew.kickoff({ strictInputs: true })).rejects.toMatchObject({ code: 'missing_input' });
    expect(llm.calls).toHaveLength(1);
  });

  it('refuses at construction a path holding a shell metacharacter or a control character', () => {
    const cases: [string, string][] = [
      ['output.txt | rm -rf /', 'it holds "|", a shell metacharacter'],
      ['a > b.md', 'it holds ">", a shell metacharacter'],
      ['a<b.md', 'it holds "<", a shell metacharacter'],
      ['a & b.md', 'it holds "&", a shell metacharacter'],
      ['notes.md; rm x', 'it holds ";", a shell metacharacter'],
      ['~/notes.md', 'it starts with "~", which a shell would expand'],
      ['$HOME/notes.md', 'it starts with "$", which a shell would expand'],
      ['notes\n.md', 'it holds U+000A, a control character'],
      ['notes\u0000.md', 'it holds U+0000, a control character'],
      ['{topic}|tee.md', 'it holds "|", a shell metacharacter'],
    ];
    for (const [path, why] of cases) {
      const task = new Task({ name: 'report', description: 'Report', agent: writer, outputFile: path });
      // Allowing files outside baseDir does not allow these.
      const error = thrown(() => new Crew({ tasks: [task], baseDir: dir, allowOutsideFiles: true }));
      expect(error).toBeInstanceOf(OutputFileError);
      expect(error).toMatchObject({ code: 'output_file_failed', details: { task: 'report', path } });
      expect((error as Error).message).toBe(
        `Task "report" cannot write its output file "${path}": ${why} (output_file_failed)`,
      );
    }
  });

  it('refuses at kickoff, before any call, a path whose inputs bring in a shell metacharacter', async () => {
    const llm = createScriptedModel(() => 'never');
    const task = new Task({
      name: 'notes',
      description: 'Write',
      agent: new Agent({ role: 'Writer', llm }),
      outputFile: 'out/{name}.md',
    });
    const crew = new Crew({ tasks: [task], baseDir: dir });
    await expect(crew.kickoff({ inputs: { name: 'x; rm -rf ~' } })).rejects.toMatchObject({
      code: 'output_file_failed',
      details: { task: 'notes', path: 'out/{name}.md' },
      message:
        'Task "notes" cannot write its output file "out/{name}.md": filled from the inputs it is "out/x; rm -rf ~.md": it holds ";", a shell metacharacter (output_file_failed)',
    });
    expect(llm.calls).toHaveLength(0);
    expect(await readdir(dir)).toEqual([]);
  });

  it('writes outside baseDir when the crew allows it', async () => {
    const task = new Task({ name: 'out', description: 'Out', agent: writer, outputFile: '../outside.md' });
    const inner = join(dir, 'inner');
    await new Crew({ tasks: [task], baseDir: inner, allowOutsideFiles: true }).kickoff();
    expect(await readFile(join(dir, 'outside.md'), 'utf8')).toBe('notes on Out');
  });

  it('fails the task, unretried, with output_file_failed when the write fails, and blocks the rest', async () => {
    await writeFile(join(dir, 'taken'), 'a file, not a folder');
    const first = new Task({ name: 'first', description: 'First', agent: writer, outputFile: 'taken/a.md' });
    const second = new Task({ name: 'second', description: 'Second', agent: writer });
    const out = await new Crew({ tasks: [first, second], baseDir: dir }).kickoff();
    expect(out.status).toBe('failed');
    expect(out.failures.first).toMatchObject({ code: 'output_file_failed', retryable: false });
    expect(out.nodes.find((n) => n.nodeId === 'first')?.attempts).toBe(1);
    expect(out.metadata.blocked).toEqual(['second']);
    expect(await readdir(dir)).toEqual(['taken']);
  });

  it('writes the same file again when a resumed run restores the completed task', async () => {
    const store = new MemoryStore();
    let fail = true;
    const llm = createScriptedModel((request) => {
      const task = taskLine(request.prompt).slice('Task: '.length);
      if (task === 'Second' && fail) throw Object.assign(new Error('down'), { status: 400 });
      return `done ${task}`;
    });
    const agent = new Agent({ role: 'Writer', llm, maxRetries: 0 });
    const first = new Task({ name: 'first', description: 'First', agent, outputFile: 'first.md' });
    const second = new Task({ name: 'second', description: 'Second', agent, outputFile: 'second.md' });
    const crew = new Crew({ tasks: [first, second], baseDir: dir, store });
    const failed = await crew.kickoff({ executionId: 'run-1' });
    expect(failed.status).toBe('partial');
    await rm(join(dir, 'first.md'));
    fail = false;
    const resumed = await crew.resume('run-1');
    expect(resumed.status).toBe('completed');
    expect(resumed.metadata.restored).toEqual(['first']);
    expect(await readFile(join(dir, 'first.md'), 'utf8')).toBe('done First');
    expect(await readFile(join(dir, 'second.md'), 'utf8')).toBe('done Second');
  });
});
