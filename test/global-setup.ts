/**
 * Before the tests: builds the package once (the CLI tests run the built `statecrew` binary in child
 * processes, and their fixtures import the built package by name, as a user's project would), and
 * looks for what some suites need — PostgreSQL and Redis on 127.0.0.1, Debian's Chromium. What is
 * missing makes those suites skip, saying why (`STATECREW_NO_SERVICES=1`, `STATECREW_NO_BROWSER=1`
 * for the test processes), except under `CI=true`, where they are required and fail instead.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';

/** Whether something accepts TCP connections on 127.0.0.1:`port`, within a second. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function lookForServices(): Promise<void> {
  if (process.env.CI === 'true') return;
  const missing: string[] = [];
  if (process.env.STATECREW_NO_SERVICES !== '1') {
    if (!(await listening(5432))) missing.push('PostgreSQL on 127.0.0.1:5432');
    if (!(await listening(6379))) missing.push('Redis on 127.0.0.1:6379');
    if (missing.length > 0) {
      process.env.STATECREW_NO_SERVICES = '1';
      console.log(
        `Skipping the PostgreSQL and Redis suites: no ${missing.join(', no ')} (CI=true requires them).`,
      );
    }
  }
  if (process.env.STATECREW_NO_BROWSER !== '1' && !existsSync('/usr/bin/chromium')) {
    process.env.STATECREW_NO_BROWSER = '1';
    console.log('Skipping the browser suite: no Chromium at /usr/bin/chromium (CI=true requires it).');
  }
}

export default async function setup(): Promise<void> {
  await lookForServices();
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
