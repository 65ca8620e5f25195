import ts from 'typescript';
import { docOf, oneLine, type Sources, typeText } from './program.js';

/** One field of an event. */
export interface EventField {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

/** One event type, as the reference lists it. */
export interface EventEntry {
  type: string;
  description: string;
  fields: EventField[];
}

/** What `StatecrewEvent` says: the fields every event has, and each event type with its own. */
export interface EventsReference {
  common: EventField[];
  events: EventEntry[];
}

/**
 * Every event type of `StatecrewEvent` (src/types.ts), read from the type itself: its union's members
 * in declaration order, each member's doc comment, and the fields it adds to the ones every event has.
 */
export function eventsReference(sources: Sources): EventsReference {
  const { program, checker } = sources;
  const file = program.getSourceFile(
    program.getRootFileNames().find((f) => f.endsWith('src/types.ts')) ?? '',
  );
  const alias = file?.statements.find(
    (s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === 'StatecrewEvent',
  );
  if (file === undefined || alias === undefined || !ts.isIntersectionTypeNode(alias.type)) {
    throw new Error('StatecrewEvent is not an intersection of the common fields and a union in src/types.ts');
  }
  const [base, members] = alias.type.types;
  const union = members !== undefined && ts.isParenthesizedTypeNode(members) ? members.type : members;
  if (base === undefined || union === undefined || !ts.isUnionTypeNode(union)) {
    throw new Error('StatecrewEvent does not end with a union of event types');
  }
  const common = fieldsOf(checker.getTypeFromTypeNode(base), sources, new Set());
  const shared = new Set(common.map((f) => f.name));
  const events = union.types.map((member, index) => {
    const type = checker.getTypeFromTypeNode(member);
    const literal = checker.getTypeOfSymbol(checker.getPropertyOfType(type, 'type') as ts.Symbol);
    if (!literal.isStringLiteral())
      throw new Error(`An event type without a literal type: ${member.getText()}`);
    return {
      type: literal.value,
      // A member's doc comment sits before its `|`, in the trivia after the member before it.
      description: leadingDoc(
        index === 0 ? union.getFullStart() : (union.types[index - 1] as ts.Node).end,
        file,
      ),
      fields: fieldsOf(type, sources, new Set([...shared, 'type'])),
    };
  });
  return { common, events };
}

/**
 * The fields of `type` but those named in `skip`, in declaration order. An event whose fields vary
 * (a union: a delegation is an allocation or an agent's call) lists each field once: required only
 * when every variant requires it, typed as the variants type it.
 */
function fieldsOf(type: ts.Type, { checker, made }: Sources, skip: ReadonlySet<string>): EventField[] {
  const variants = type.isUnion() ? type.types : [type];
  const found = new Map<string, ts.Symbol[]>();
  for (const variant of variants) {
    for (const property of checker.getPropertiesOfType(variant)) {
      if (!skip.has(property.name)) found.set(property.name, [...(found.get(property.name) ?? []), property]);
    }
  }
  return [...found].map(([name, symbols]) => ({
    name,
    type: [...new Set(symbols.map((p) => typeText(checker.getTypeOfSymbol(p), checker, made)))].join(' | '),
    required:
      symbols.length === variants.length && symbols.every((p) => (p.flags & ts.SymbolFlags.Optional) === 0),
    description: symbols.map((p) => docOf(p, checker)).find((doc) => doc !== '') ?? '',
  }));
}

/** The last doc comment in the trivia at `position`, on one line. */
function leadingDoc(position: number, file: ts.SourceFile): string {
  const ranges = ts.getLeadingCommentRanges(file.text, position) ?? [];
  const comments = [...ranges]
    .map((r) => file.text.slice(r.pos, r.end))
    .filter((text) => text.startsWith('/**'));
  const last = comments.at(-1);
  if (last === undefined) return '';
  return oneLine(
    last
      .replace(/^\/\*\*/, '')
      .replace(/\*\/$/, '')
      .split('\n')
      .map((line) => line.replace(/^\s*\* ?/, ''))
      .join(' '),
  );
}
