// A Claude Code member's permission request allowed from the web view, with the real binary (`claude -p`,
// the pinned version) against the scripted Messages API and teamux's generated settings, and a real
// headless Chromium: the page shows the tool and its input, Allow posts the screen's signed answer, the
// tool runs; a second request denied with feedback does not run, and the feedback reaches the model.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TeamView } from '../../src/app/team-view.js';
import { startScriptedServer, type LoggedRequest } from '../../src/demo/server.js';
import { WebServer } from '../../src/web/server.js';
import { trustRoot } from '../agent/helpers.js';
import { CHROMIUM, launchBrowser } from '../helpers/browser.js';
import { claudeCodeForTests, claudePrint, printMemberFiles } from '../helpers/claude-code.js';
import { makeTeam } from '../helpers/team.js';

const CLAUDE = claudeCodeForTests();
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const bodyText = (r: LoggedRequest): string => JSON.stringify(r.body);

describe.skipIf(!CLAUDE || !CHROMIUM)('the web view answers a Claude Code permission request (real binary, real browser)', () => {
  it('web.real-binary-allow-from-the-page-runs-the-tool-deny-with-feedback-does-not', async () => {
    const t = await makeTeam(['bob'], { runtime: 'claude' });
    cleanups.push(t.cleanup);
    const root = (await t.store.config()).root;
    const { screen, run, env } = await trustRoot(t.dir);
    const { home, settings } = printMemberFiles(root, t.dir, 'bob', { permissionTimeout: 90 });
    const allowed = path.join(root, 'allowed.txt');
    const denied = path.join(root, 'denied.txt');
    const server = await startScriptedServer({
      scripts: {
        bob: {
          idle_reply: '(bob waits)',
          steps: [
            { when: { last_user_contains: 'first' }, reply: [{ tool_use: { name: 'Bash', input: { command: `touch ${allowed}`, description: 'Create allowed.txt' } } }] },
            { reply: [{ text: 'first over' }] },
            { when: { last_user_contains: 'second' }, reply: [{ tool_use: { name: 'Bash', input: { command: `touch ${denied}`, description: 'Create denied.txt' } } }] },
            { reply: [{ text: 'second over' }] },
          ],
        },
      } as never,
    });
    cleanups.push(() => server.close());

    // The screen's side: its team watch and its signed answers, served as the web view.
    const view = new TeamView(screen);
    await view.start();
    cleanups.push(() => view.dispose());
    const web = new WebServer({
      snapshot: () => view.snapshot(),
      onChange: (l) => view.onChange(() => l()),
      events: async (n) => (await screen.events.read(n)).events,
      answer: async (id, to, approve, text) => {
        const r = await screen.answerRequest(id, to, approve, text);
        return r.ok ? { ok: true } : { ok: false, message: r.message };
      },
      log: screen.log,
    }, { port: 0, listen: '127.0.0.1' });
    await web.start();
    cleanups.push(() => web.dispose());
    const browser = await launchBrowser();
    cleanups.push(() => browser.close());
    const page = await browser.newPage();
    await page.goto(web.url('/'));

    const opts = { member: 'bob', root, home, settings, apiUrl: server.url, env: { TEAMUX_TEAM_DIR: t.dir, TEAMUX_TRUST_KEY: env.TEAMUX_TRUST_KEY!, TEAMUX_RUN: run }, onCleanup: (kill: () => void) => cleanups.push(kill) };
    const first = claudePrint(CLAUDE!, 'first', opts);
    // The team page lists it first, live (no reload); its page shows the tool's input.
    await page.getByText("bob's Bash").first().waitFor({ timeout: 60_000 });
    await page.getByText("bob's Bash").first().click();
    await page.getByText(`touch ${allowed}`).first().waitFor();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(/done=allowed/);
    expect((await first).out).toContain('first over');
    expect(existsSync(allowed)).toBe(true);

    const second = claudePrint(CLAUDE!, 'second', opts);
    await page.goto(`${new URL(web.url('/')).origin}/`);
    await page.getByText("bob's Bash").first().waitFor({ timeout: 60_000 });
    await page.getByText("bob's Bash").first().click();
    await page.getByLabel('feedback').fill('not that file: write it under docs/');
    await page.getByRole('button', { name: 'Deny with feedback' }).click();
    await page.waitForURL(/done=denied/);
    expect((await second).out).toContain('second over');
    expect(existsSync(denied)).toBe(false);
    const after = await server.waitForRequest((r) => r.member === 'bob' && bodyText(r).includes('not that file: write it under docs/'), 20_000);
    expect(bodyText(after)).toContain('tool_result');
  }, 240_000);
});
