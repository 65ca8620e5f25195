import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { describeThrown, InvalidDatasetError } from '../errors.js';
import { checkCases, type PlacedCase } from './dataset-case.js';
import type { Dataset, EvalCase } from './types.js';

/** The file extensions a dataset file may have. */
const EXTENSIONS = ['.jsonl', '.json', '.yaml', '.yml'] as const;

/**
 * The cases of a dataset: an array as it is (each checked), or a `.jsonl` (a case per line), `.json`
 * (an array), `.yaml` or `.yml` (a list) file, a relative path read from `process.cwd()`. Throws
 * `invalid_dataset` naming the file and line, or the index, and what is wrong: a missing file, another
 * extension, no case at all, a line that is not JSON, a case that is not `{ inputs, expected?,
 * expectedOutputs?, id? }`, or two cases with one id.
 *
 * @example
 * const cases = await loadDataset('cases.jsonl'); // [{ inputs: { topic: 'AI' }, expected: 'AI' }, …]
 */
export async function loadDataset(dataset: Dataset): Promise<EvalCase[]> {
  if (Array.isArray(dataset)) {
    const placed = (dataset as readonly unknown[]).map((value, index) => ({
      value,
      where: `case #${index}`,
    }));
    return checkCases(placed, 'the array');
  }
  if (typeof dataset !== 'string' || dataset.trim() === '') {
    throw new InvalidDatasetError(
      'dataset',
      `must be an array of cases or the path of a .jsonl, .json, .yaml or .yml file, got ${describeThrown(dataset)}`,
    );
  }
  return checkCases(await readDatasetFile(dataset), dataset);
}

/** The cases of a dataset file, each with where it is in the file. */
async function readDatasetFile(file: string): Promise<PlacedCase[]> {
  const extension = extname(file).toLowerCase();
  if (!(EXTENSIONS as readonly string[]).includes(extension)) {
    throw new InvalidDatasetError(file, `a dataset file is .jsonl, .json, .yaml or .yml, not "${extension}"`);
  }
  const text = await readText(file);
  if (extension === '.jsonl') return jsonLines(file, text);
  if (extension === '.json') return jsonArray(file, text);
  return yamlList(file, text);
}

/** The text of `file`, resolved from the working directory; `invalid_dataset` when it cannot be read. */
async function readText(file: string): Promise<string> {
  try {
    return await readFile(resolve(process.cwd(), file), 'utf8');
  } catch (error) {
    const missing = (error as { code?: unknown }).code === 'ENOENT';
    throw new InvalidDatasetError(
      file,
      missing ? 'the file does not exist' : `the file cannot be read: ${describeThrown(error)}`,
    );
  }
}

/** One JSON case per line that is not blank. */
function jsonLines(file: string, text: string): PlacedCase[] {
  const cases: PlacedCase[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${file} line ${index + 1}`;
    try {
      cases.push({ value: JSON.parse(line) as unknown, where });
    } catch (error) {
      throw new InvalidDatasetError(where, `not JSON (${describeThrown(error)})`);
    }
  });
  return cases;
}

/** A JSON array of cases. */
function jsonArray(file: string, text: string): PlacedCase[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InvalidDatasetError(file, `not JSON (${describeThrown(error)})`);
  }
  if (!Array.isArray(parsed)) throw new InvalidDatasetError(file, 'a .json dataset is an array of cases');
  return parsed.map((value: unknown, index) => ({ value, where: `${file} case #${index}` }));
}

/** A YAML list of cases, each named by the line it starts on. */
function yamlList(file: string, text: string): PlacedCase[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const [error] = doc.errors;
  if (error !== undefined) {
    const line = lines.linePos(error.pos[0]).line;
    throw new InvalidDatasetError(
      `${file} line ${line}`,
      `YAML syntax error: ${error.message.split('\n')[0]}`,
    );
  }
  const parsed: unknown = doc.toJS();
  const items = (doc.contents as { items?: { range?: [number, number, number] | null }[] } | null)?.items;
  if (!Array.isArray(parsed) || items === undefined) {
    throw new InvalidDatasetError(file, 'a .yaml dataset is a list of cases');
  }
  return parsed.map((value: unknown, index) => {
    const offset = items[index]?.range?.[0];
    const where =
      offset === undefined ? `${file} case #${index}` : `${file} line ${lines.linePos(offset).line}`;
    return { value, where };
  });
}
