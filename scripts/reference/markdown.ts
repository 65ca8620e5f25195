import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import type { OptionsSchema } from '../../src/options/parse.js';
import { type ErrorRow, errorRows } from './errors.js';
import { type EventField, type EventsReference, eventsReference } from './events.js';
import { OPTIONS_OBJECTS } from './objects.js';
import { exportedImport, type OptionRow, type OptionsObject, optionRows, optionsImport } from './options.js';
import { root, type Sources, sourcesOf } from './program.js';

/** A Markdown table cell: one line, its pipes escaped. */
const cell = (text: string) => text.replaceAll('|', '\\|');

/** Code in a cell. */
const code = (text: string) => (text === '' ? '' : `\`${cell(text)}\``);

/** A default as code when it is a value (`8`, `'sequential'`, `[]`), as words when it says what decides it. */
const defaultCell = (text: string) =>
  /^(-?[\d_.]+|'[^']*'|true|false|\[\]|\{\})$/.test(text) ? code(text) : cell(text);

/** The sources the reference reads types from: the events' file, and the options types made in memory. */
function referenceSources(): Sources {
  const made = ["import type { z } from 'zod';", ...OPTIONS_OBJECTS.map(optionsImport)].join('\n');
  const exported = ["import type { z } from 'zod';", ...OPTIONS_OBJECTS.map(exportedImport)].join('\n');
  return sourcesOf(['src/types.ts'], { made, exported });
}

/** Every file of `src/`, parsed (no types needed): where the error classes are declared. */
function srcFiles(): ts.SourceFile[] {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { fileNames } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  return fileNames
    .filter((file) => file.startsWith(join(root, 'src/')))
    .map((file) => ts.createSourceFile(file, ts.sys.readFile(file) ?? '', ts.ScriptTarget.ES2022, true));
}

/** The schema `object` names, loaded from its module. */
async function schemaOf(object: OptionsObject): Promise<OptionsSchema> {
  const module = (await import(pathToFileURL(join(root, object.module)).href)) as Record<string, unknown>;
  const schema = module[object.schema] as OptionsSchema | undefined;
  if (schema === undefined) throw new Error(`${object.module} exports no ${object.schema}`);
  return schema;
}

function optionsSection(object: OptionsObject, rows: readonly OptionRow[]): string[] {
  return [
    `### ${object.title}`,
    '',
    `\`${object.type}\``,
    '',
    '| Option | Type | Default | Description |',
    '|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| \`${r.name}\`${r.required ? ' (required)' : ''} | ${code(r.type)} | ${defaultCell(r.default)} | ${cell(r.description)} |`,
    ),
    '',
  ];
}

function fieldsTable(fields: readonly EventField[]): string[] {
  if (fields.length === 0) return ['No fields of its own.', ''];
  return [
    '| Field | Type | Description |',
    '|---|---|---|',
    ...fields.map(
      (f) => `| \`${f.name}\`${f.required ? '' : ' (optional)'} | ${code(f.type)} | ${cell(f.description)} |`,
    ),
    '',
  ];
}

function eventsSection({ common, events }: EventsReference): string[] {
  return [
    '## Events',
    '',
    `Every \`StatecrewEvent\` a run emits on \`events$\` (${events.length} types), read from \`src/types.ts\`. Every event has these fields:`,
    '',
    ...fieldsTable(common),
    ...events.flatMap((e) => [
      `### \`${e.type}\``,
      '',
      ...(e.description === '' ? [] : [e.description, '']),
      ...fieldsTable(e.fields),
    ]),
  ];
}

function errorsSection(rows: readonly ErrorRow[]): string[] {
  return [
    '## Error codes',
    '',
    `Every \`StatecrewError\` code (${rows.length}), from the table in \`src/error-codes.ts\`: the class that throws it, whether an attempt that failed with it is retried (\`retryable\`), and what it means. A message always ends with its code in parentheses. \`isStatecrewError(error, code)\` tells one apart, from any copy of statecrew loaded in the process (\`instanceof\` knows only its own copy's classes).`,
    '',
    '| Code | Class | Retryable | Meaning |',
    '|---|---|---|---|',
    ...rows.map(
      (r) => `| \`${r.code}\` | \`${r.className}\` | ${r.retryable ? 'yes' : 'no'} | ${cell(r.meaning)} |`,
    ),
    '',
  ];
}

/** `docs/reference.md` as the code describes it now. */
export async function referenceMarkdown(): Promise<string> {
  const sources = referenceSources();
  const schemas = await Promise.all(OPTIONS_OBJECTS.map(schemaOf));
  const options = OPTIONS_OBJECTS.flatMap((object, index) =>
    optionsSection(object, optionRows(sources, object, schemas[index] as OptionsSchema, index)),
  );
  return [
    '# Reference',
    '',
    'Generated from the code by `npm run reference` (`scripts/reference.ts`); `test/docs/reference.test.ts` fails when it is stale. Do not edit it by hand: each option is described on its schema field, each event on `StatecrewEvent`, each error code in `ERROR_CODES`.',
    '',
    '## Options',
    '',
    'Every options object is checked when it is passed: a key it does not know is `invalid_option`, naming the closest known key; a value it refuses is `invalid_option`, naming the option and what it takes.',
    '',
    ...options,
    ...eventsSection(eventsReference(sources)),
    ...errorsSection(errorRows(srcFiles())),
  ].join('\n');
}
