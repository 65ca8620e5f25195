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
  const from = `../../${object.module.replace(/\.ts$/, '.js')}`;
  return [
    `import { ${object.schema} as schema${index} } from '${from}';`,
    `export type Options${index} = z.input<typeof schema${index}>;`,
  ].join('\n');
}

/**
 * The rows of options object number `index`: each option of its schema, in the schema's order, with
 * the type and docs its input type shows (the docs written on the schema's fields) and its default —
 * the schema's `.default()`, which its `@default` tag must say too, else that tag.
 */
export function optionRows(sources: Sources, schema: OptionsSchema, index: number): OptionRow[] {
  const { checker, made } = sources;
  const alias = made.statements.find(
    (s) => ts.isTypeAliasDeclaration(s) && s.name.text === `Options${index}`,
  );
  if (alias === undefined) throw new Error(`Options${index} is not in the file made in memory`);
  const type = checker.getTypeAtLocation(alias);
  const shape = schema.shape as Record<string, z.ZodType>;
  const names = Object.keys(shape);
  const properties = new Map(checker.getPropertiesOfType(type).map((p) => [p.name, p]));
  const extra = [...properties.keys()].filter((name) => !names.includes(name));
  if (extra.length > 0) throw new Error(`Options${index} has options its schema lacks: ${extra.join(', ')}`);
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
