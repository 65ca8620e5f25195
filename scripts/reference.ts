/**
 * Writes `docs/reference.md` from the code: every option of every options object (from its schema),
 * every event type (from `StatecrewEvent`) and every error code (from `ERROR_CODES`).
 * Run it with `npm run reference`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { referenceMarkdown } from './reference/markdown.js';
import { root } from './reference/program.js';

writeFileSync(join(root, 'docs/reference.md'), await referenceMarkdown());
