import ts from 'typescript';
import { ERROR_CODES, type StatecrewErrorCode } from '../../src/error-codes.js';

/** One error code as the reference lists it. */
export interface ErrorRow {
  code: StatecrewErrorCode;
  className: string;
  retryable: boolean;
  meaning: string;
}

/**
 * Every error code of the table (src/error-codes.ts) with the class that throws it, found in
 * `files` (every file of `src/`): the class declared `extends StatecrewError<'code'>`. A code no class or two classes throw
 * is refused, so the table and the classes cannot drift apart.
 */
export function errorRows(files: readonly ts.SourceFile[]): ErrorRow[] {
  const classes = new Map<string, string[]>();
  for (const file of files) {
    for (const statement of file.statements) {
      if (!ts.isClassDeclaration(statement) || statement.name === undefined) continue;
      const code = codeOf(statement);
      if (code !== undefined) classes.set(code, [...(classes.get(code) ?? []), statement.name.text]);
    }
  }
  return (Object.keys(ERROR_CODES) as StatecrewErrorCode[]).sort().map((code) => {
    const found = classes.get(code) ?? [];
    if (found.length !== 1) {
      throw new Error(
        `Error code ${code} is thrown by ${found.length} classes (${found.join(', ')}); one is expected`,
      );
    }
    return { code, className: found[0] as string, ...ERROR_CODES[code] };
  });
}

/** The code of a class declared `extends StatecrewError<'code'>`. */
function codeOf(declaration: ts.ClassDeclaration): string | undefined {
  for (const clause of declaration.heritageClauses ?? []) {
    for (const heritage of clause.types) {
      if (heritage.expression.getText() !== 'StatecrewError') continue;
      const [argument] = heritage.typeArguments ?? [];
      if (argument !== undefined && ts.isLiteralTypeNode(argument) && ts.isStringLiteral(argument.literal)) {
        return argument.literal.text;
      }
    }
  }
  return undefined;
}
