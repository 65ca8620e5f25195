import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Debian's Chromium (`apt-get install -y chromium`); CI installs it when it is missing. */
export const CHROMIUM = '/usr/bin/chromium';
/** How the browser tests launch it: headless, offline, no first-run work. */
export const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];
export const hasChromium = existsSync(CHROMIUM);
/** `STATECREW_NO_BROWSER=1` skips the browser tests; without it a missing Chromium fails them. */
export const optedOut = process.env.STATECREW_NO_BROWSER === '1';
/** Where the tests leave their pages and screenshots (gitignored). */
export const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

/** Says a browser test is skipped, and why. */
export function warnSkipped(what: string): void {
  console.warn(
    `Skipping ${what}: STATECREW_NO_BROWSER=1${hasChromium ? '' : ` and ${CHROMIUM} is missing`}.`,
  );
}

/** The error each test fails with when Chromium is missing and the tests are not opted out. */
export function missingChromium(): Error {
  return new Error(
    `Chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium" ` +
      '(.ci/run does), or set STATECREW_NO_BROWSER=1 to skip this test.',
  );
}
