import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InvalidDatasetError, loadDataset } from '../../src/index.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/evals/${name}`, import.meta.url));

/** The `invalid_dataset` error a load rejects with; fails when it resolves or rejects otherwise. */
async function refusal(dataset: Parameters<typeof loadDataset>[0]): Promise<InvalidDatasetError> {
  const error: unknown = await loadDataset(dataset).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidDatasetError);
  return error as InvalidDatasetError;
}

const TWO_CASES = [
  { id: 'ai', inputs: { topic: 'AI' }, expected: 'AI' },
  { inputs: { topic: 'ML' }, expectedOutputs: { research: 'ML facts' } },
];

describe('loadDataset', () => {
  it('takes an array of cases, copying only the known fields', async () => {
    const cases = await loadDataset([
      { id: 'a', inputs: { topic: 'AI' }, expected: { n: 1 }, note: 'ignored' } as never,
      { inputs: {} },
    ]);
    expect(cases).toEqual([{ id: 'a', inputs: { topic: 'AI' }, expected: { n: 1 } }, { inputs: {} }]);
  });

  it('refuses a case without an inputs object, naming its index', async () => {
    const error = await refusal([{ inputs: {} }, { inputs: 'AI' } as never]);
    expect(error.code).toBe('invalid_dataset');
    expect(error.message).toContain('case #1');
    expect(error.message).toContain('"inputs" must be an object');
  });

  it('refuses a case that is not an object, expectedOutputs that are not an object, and a blank id', async () => {
    expect((await refusal(['AI'] as never)).message).toContain('case #0');
    expect((await refusal([{ inputs: {}, expectedOutputs: ['x'] }] as never)).message).toContain(
      '"expectedOutputs" must be an object',
    );
    expect((await refusal([{ inputs: {}, id: ' ' }])).message).toContain('"id" must be a non-empty text');
  });

  it('refuses two cases with one id, naming both', async () => {
    const error = await refusal([
      { id: 'x', inputs: {} },
      { id: 'y', inputs: {} },
      { id: 'x', inputs: {} },
    ]);
    expect(error.message).toContain('Dataset case #2: id "x" is also the id of case #0');
  });

  it('refuses an empty dataset and something that is neither an array nor a path', async () => {
    expect((await refusal([])).message).toContain('holds no case');
    expect((await refusal(42 as never)).message).toContain('must be an array of cases or the path');
  });

  it('reads a JSONL file, one case per line, blank lines skipped', async () => {
    expect(await loadDataset(fixture('cases.jsonl'))).toEqual(TWO_CASES);
  });

  it('refuses a JSONL file whose line 3 is not JSON, naming the file and line', async () => {
    const error = await refusal(fixture('bad-line.jsonl'));
    expect(error.message).toContain('bad-line.jsonl line 3: not JSON');
    expect(error.details.where).toMatch(/bad-line\.jsonl line 3$/);
  });

  it('reads a YAML list and a JSON array', async () => {
    expect(await loadDataset(fixture('cases.yaml'))).toEqual(TWO_CASES);
    expect(await loadDataset(fixture('cases.json'))).toEqual(TWO_CASES);
  });

  it('names the line of a YAML case that is wrong, and of a YAML syntax error', async () => {
    expect((await refusal(fixture('bad-case.yaml'))).message).toContain('bad-case.yaml line 3: "inputs"');
    const dir = mkdtempSync(join(tmpdir(), 'statecrew-dataset-'));
    writeFileSync(join(dir, 'broken.yaml'), '- inputs:\n    topic: AI\n- inputs: [AI\n');
    const broken = await refusal(join(dir, 'broken.yaml'));
    expect(broken.message).toMatch(/broken\.yaml line [34]: YAML syntax error/);
  });

  it('refuses a missing file and a file of another extension', async () => {
    expect((await refusal(fixture('nothing-here.jsonl'))).message).toContain('the file does not exist');
    expect((await refusal(fixture('cases.csv'))).message).toContain('not ".csv"');
  });

  it('refuses a JSON file that is not an array of cases', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'statecrew-dataset-'));
    writeFileSync(join(dir, 'one.json'), '{"inputs":{}}');
    expect((await refusal(join(dir, 'one.json'))).message).toContain('a .json dataset is an array of cases');
  });

  it('reads a relative path from the working directory', async () => {
    const path = relative(process.cwd(), fixture('cases.jsonl'));
    expect(path.startsWith('test')).toBe(true);
    expect(await loadDataset(path)).toEqual(TWO_CASES);
  });
});
