// A real headless Chromium (Debian's chromium, driven by playwright-core) for the web view's tests.
// Where it is missing the tests skip with a visible notice; .ci/run installs it so that CI never skips.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = [process.env.TEAMUX_CHROMIUM ?? '', '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser binary, or null. */
export const CHROMIUM = CANDIDATES.find((p) => p !== '' && existsSync(p)) ?? null;

if (!CHROMIUM) process.stderr.write('NOTICE: no chromium found (apt-get install chromium): the web view\'s browser tests are SKIPPED\n');

/** Launch it headless (no sandbox: the tests run as root, as CI does). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM!, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}
