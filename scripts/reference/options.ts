import ts from 'typescript';
import type { z } from 'zod';
import { defaultOf } from '../../src/options/option.js';
import type { OptionsSchema } from '../../src/options/parse.js';
import { defaultTagOf, docOf, type Sources, typeText } from './program.js';

/** One options object the reference lists: how it is passed, and the schema that describes it. */
export interface OptionsObject {
  /** Where it is passed, as users write it: `new Crew(options)`. */
  title: string;
  /** The exported type users write it as. */
  type: string;
  /** The public entry that exports it, relative to the root. */
  entry: string;
  /**
   * The exported types as users write them (a generic one with a type argument): each must show the
   * docs of the schema's fields, and have no option the schema lacks.
   */
  exported: readonly string[];
  /** The module that exports its schema, relative to the root, and the schema's export name. */
  module: string;
  schema: string;
}

/** One option as the reference lists it. */
export interface OptionRow {
  name: string;
  type: string;
  required: boolean;
  default: string;
  description: string;
}

/** The import the file made in memory holds for `object`, naming its schema `schema<index>`. */
export function optionsImport(object: OptionsObject, index: number): string {
  return [
    `import { ${object.schema} as schema${index} } from '${fromHere(object.module)}';`,
    `export type Options${index} = z.input<typeof schema${index}>;`,
  ].join('\n');
}

/**
 * The imports the file `exported` made in memory holds for `object`: its exported types as users
 * write them (`Exported<index>_<n>`), from its public entry. They sit in a file of their own, so
 * their names never qualify the types the reference prints.
 */
export function exportedImport(object: OptionsObject, index: number): string {
  const names = [...new Set(object.exported.flatMap((type) => type.match(OPTIONS_NAME) ?? []))];
  const own = (name: string) => `E${index}${name}`;
  return [
    `import type { ${names.map((name) => `${name} as ${own(name)}`).join(', ')} } from '${fromHere(object.entry)}';`,
    ...object.exported.map(
      (type, n) => `export type Exported${index}_${n} = ${type.replaceAll(OPTIONS_NAME, own)};`,
    ),
  ].join('\n');
}

/** The name of an exported options type. */
const OPTIONS_NAME = /\b\w+(?:Options|Settings)\b/g;

/** An import specifier for `file` (relative to the root) from the files made in memory. */
const fromHere = (file: string) => `../../${file.replace(/\.ts$/, '.js')}`;

/**
 * The rows of options object number `index`: each option of its schema, in the schema's order, with
 * the type and docs its input type shows (the docs written on the schema's fields) and its default —
 * the schema's `.default()`, which its `@default` tag must say too, else that tag.
 */
export function optionRows(
  sources: Sources,
  object: OptionsObject,
  schema: OptionsSchema,
  index: number,
): OptionRow[] {
  const { checker, made } = sources;
  const type = madeType(sources, `Options${index}`);
  const shape = schema.shape as Record<string, z.ZodType>;
  const names = Object.keys(shape);
  const properties = new Map(checker.getPropertiesOfType(type).map((p) => [p.name, p]));
  const extra = [...properties.keys()].filter((name) => !names.includes(name));
  if (extra.length > 0) throw new Error(`Options${index} has options its schema lacks: ${extra.join(', ')}`);
  checkExported(sources, object, index, properties);
  return names.map((name) => {
    const property = properties.get(name);
    if (property === undefined) throw new Error(`Options${index} lacks option ${name}`);
    return {
      name,
      type: typeText(checker.getTypeOfSymbol(property), checker, made),
      required: (property.flags & ts.SymbolFlags.Optional) === 0,
      default: defaultText(name, shape[name] as z.ZodType, defaultTagOf(property, checker)),
      description: docOf(property, checker),
    };
  });
}

/** An option's default as the reference shows it; a `.default()` its `@default` tag does not say is refused. */
function defaultText(name: string, schema: z.ZodType, tag: string | undefined): string {
  const given = defaultOf(schema);
  if (given === undefined) return tag ?? '';
  const shown = literal(given.value);
  if (tag === undefined || tag.replaceAll('_', '') !== shown) {
    throw new Error(
      `Option ${name}: its schema's default is ${shown}, but its docs say @default ${tag ?? '(none)'}`,
    );
  }
  return shown;
}

/** A default value as code writes it: `'sequential'`, `8`, `false`, `[]`. */
function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  return JSON.stringify(value) ?? String(value);
}

/** A type alias of the files made in memory. */
function madeType({ checker, files }: Sources, name: string): ts.Type {
  for (const file of files.values()) {
    const alias = file.statements.find((s) => ts.isTypeAliasDeclaration(s) && s.name.text === name);
    if (alias !== undefined) return checker.getTypeAtLocation(alias);
  }
  throw new Error(`${name} is not in the files made in memory`);
}

/**
 * Refuses an exported options type that is not what its schema says: an option the schema lacks, or
 * one whose docs (what an editor shows on hover) are not the ones written on the schema's field.
 */
function checkExported(
  sources: Sources,
  object: OptionsObject,
  index: number,
  schemaProperties: ReadonlyMap<string, ts.Symbol>,
): void {
  const { checker } = sources;
  object.exported.forEach((name, n) => {
    for (const property of checker.getPropertiesOfType(madeType(sources, `Exported${index}_${n}`))) {
      const own = schemaProperties.get(property.name);
      if (own === undefined) throw new Error(`${name} has option ${property.name}, which its schema lacks`);
      if (
        docOf(property, checker) !== docOf(own, checker) ||
        defaultTagOf(property, checker) !== defaultTagOf(own, checker)
      ) {
        throw new Error(`${name}.${property.name} does not show the docs written on its schema field`);
      }
    }
  });
}
