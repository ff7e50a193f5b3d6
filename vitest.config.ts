import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The CommonJS sources (.cts: the Stop hook's entry and the store's plain reader it shares) are TypeScript too.
  oxc: { include: /\.(m?ts|cts|[jt]sx)$/ },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/build.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Multi-process and tmux tests load both cores; run files two at a time.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
