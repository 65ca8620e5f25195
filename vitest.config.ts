import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
    // Many suites start real processes and servers: on a loaded 2-core machine one such test takes
    // several seconds, so the defaults (5 s a test, 10 s a hook) fail tests that are not wrong.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
