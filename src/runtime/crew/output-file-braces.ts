import { OutputFileError } from '../../errors.js';

/** A placeholder's name: a letter or `_`, then letters, digits or `_` (as in every other text). */
const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Refuses an output file path holding a `{` whose text up to the next `}` is no placeholder name
 * (`{invalid-name}`, `{}`, `{{topic}}`), as CrewAI's Task refuses it (`Invalid template variable
 * name`): in a path such braces are a mistyped placeholder far more often than a folder's name, and
 * the file would land where nobody looks. Throws `output_file_failed` naming the task and the braces.
 */
export function checkOutputFileBraces(task: string, template: string | undefined): void {
  if (template === undefined || !template.includes('{')) return;
  for (const part of template.split('{').slice(1)) {
    const name = part.split('}')[0] as string;
    if (!PLACEHOLDER_NAME.test(name)) {
      throw new OutputFileError(
        task,
        template,
        `{${name}} is not a placeholder: a placeholder's name is a letter or "_", then letters, digits or "_"`,
      );
    }
  }
}
