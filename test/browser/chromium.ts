import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

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

/** What a page did that a test checks: the URLs it asked for, the dialogs it opened, its errors. */
export interface PageWatch {
  requests: string[];
  dialogs: string[];
  problems: string[];
}

/**
 * Records into `watch` every request of `page`, every dialog (dismissed), every page error and every
 * console error but those `expected` accepts.
 */
export function watchPage(
  page: Page,
  watch: PageWatch,
  expected: (text: string) => boolean = () => false,
): void {
  page.on('request', (request) => watch.requests.push(request.url()));
  page.on('dialog', (dialog) => {
    watch.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => watch.problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !expected(message.text())) watch.problems.push(message.text());
  });
}
