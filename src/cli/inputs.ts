import { readFileSync } from 'node:fs';
import { ConfigError, InvalidOptionError } from '../errors.js';

/**
 * A run's inputs from `--inputs file.json` (a JSON object) and `--input key=value` pairs, which win.
 * A value is parsed as JSON when it is valid JSON (`count=3`, `tags=["a"]`), else kept as text.
 */
export function readInputs(pairs: readonly string[], file: string | undefined): Record<string, unknown> {
  const inputs: Record<string, unknown> = file === undefined ? {} : inputsFile(file);
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new InvalidOptionError('statecrew', '--input', 'key=value', pair);
    inputs[pair.slice(0, at)] = inputValue(pair.slice(at + 1));
  }
  return inputs;
}

function inputsFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      file,
      undefined,
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(file, undefined, `is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(file, undefined, 'must hold a JSON object of inputs');
  }
  return value as Record<string, unknown>;
}

/** A value given as text on the command line: its JSON value when it is valid JSON, else the text. */
export function inputValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
