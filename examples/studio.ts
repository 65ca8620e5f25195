/**
 * The examples' crews and flows to serve, with the studio: what `npm start` ends by pointing at.
 *
 *   npm run build && npx statecrew serve examples/studio.ts --store sqlite --insecure-no-auth
 *
 * then open http://127.0.0.1:8787/ — the runs `npm start` kept in the default SQLite file
 * (`.statecrew/statecrew.db`) are listed there, and each opens: those of the examples this file does
 * not serve (the order saga, the due-diligence and press-release crews) are drawn from what the store
 * kept, to read but not to answer. Start a refund of more than $100 and answer its approval in the
 * page. Run as a script, it prints that line.
 */
import { Crew } from '../src/index.js';
import { isMain } from './main.js';
import { refundFlow } from './refund-approval.js';
import { buildCrew, studioModel } from './research-crew.js';

/** The refund flow: a large refund waits for a human's answer. */
export const refunds = refundFlow();

/** The research team, sequential: research → write → edit. */
export const research = (() => {
  const { research: find, write, edit } = buildCrew(studioModel());
  return new Crew({ name: 'research', tasks: [find, write, edit] });
})();

export { support } from './support-triage-flow.js';

if (isMain(import.meta.url)) {
  console.log('\nOpen the studio on the runs above (they are kept in .statecrew/statecrew.db):');
  console.log('  npm run build && npx statecrew serve examples/studio.ts --store sqlite --insecure-no-auth');
  console.log('  then browse to http://127.0.0.1:8787/ (Ctrl-C stops it)');
}
