// The web view end to end, in a real headless Chromium against a real screen: the offline demo in a
// private tmux server with --web; the link from C-a W (the only place the token is shown); alice's
// plan approved from the page (the member proceeds, the sidebar and the page both show it); a hostile
// task subject pushed live to an open board renders as text and runs nothing; no token, no page.
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TeamStore } from '../../src/store/team.js';
import { CHROMIUM, launchBrowser } from '../helpers/browser.js';
import { BIN, REPO, tempDir, waitFor } from '../helpers/team.js';
import { TmuxDriver } from '../helpers/tmux.js';

const drivers: TmuxDriver[] = [];
const cleanups: Array<() => unknown> = [];
let browser: Browser | null = null;
beforeAll(async () => {
  if (CHROMIUM) browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.kill();
  for (const c of cleanups.splice(0)) await c();
});

const HOSTILE = '<img src=x onerror="window.__pwned=1"></script><script>window.__pwned=2</script>';

describe.skipIf(!CHROMIUM)('the web view in a real browser (e2e)', () => {
  it('web.e2e-approve-a-plan-from-the-page-and-hostile-data-stays-text', async () => {
    const tmp = tempDir('teamux-web-');
    cleanups.push(tmp.cleanup);
    const demoDir = path.join(tmp.dir, 'examples', 'demo');
    mkdirSync(demoDir, { recursive: true });
    cpSync(path.join(REPO, 'examples', 'demo'), demoDir, { recursive: true, filter: (s) => !s.includes('.teamux') && !s.includes('teamux-demo') });
    symlinkSync(path.dirname(BIN), path.join(tmp.dir, 'bin'));
    const env = { ANTHROPIC_API_KEY: '', PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` };
    const d = await TmuxDriver.start(`cd ${tmp.dir} && ./bin/teamux start examples/demo/team.yaml --web=0; sleep 600`, 170, 50, env);
    drivers.push(d);
    await d.waitFor(/▶plan alice→human/, "alice's plan request", 90_000);

    // The link is shown on the person's terminal only, with a QR code under it.
    await d.keys('C-a', 'W');
    const panel = await d.waitFor(/http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+/, 'the web view panel');
    const url = /http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+/.exec(panel)![0];
    expect(panel).toMatch(/[▀▄█]{7}/);
    await d.keys('q');
    await d.waitFor((s) => !s.includes('?token='), 'the panel to close');
    const base = new URL(url).origin;

    // No token: no page.
    const stranger = await browser!.newContext();
    cleanups.push(() => stranger.close());
    const refused = await (await stranger.newPage()).goto(`${base}/`);
    expect(refused?.status()).toBe(401);

    const ctx = await browser!.newContext({ viewport: { width: 390, height: 844 } });
    cleanups.push(() => ctx.close());
    const page = await ctx.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dlg) => { dialogs.push(dlg.message()); void dlg.dismiss(); });
    await page.goto(url);
    expect(page.url()).toBe(`${base}/`);
    await page.getByText("alice's plan").first().waitFor({ timeout: 15_000 });
    await page.screenshot({ path: path.join(REPO, 'bench', 'out', 'web-team-phone.png'), fullPage: true }).catch(() => undefined);
    await page.getByText("alice's plan").first().click();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(/done=approved/);
    await page.getByText('approved', { exact: false }).first().waitFor();
    // The member proceeds: the sidebar no longer shows the plan waiting, and the request is approved and signed.
    await d.waitFor((s) => !s.includes('▶plan alice→human'), 'the sidebar to drop the answered plan', 30_000);
    const dir = path.join(demoDir, '.teamux', 'demo');
    const opened = await TeamStore.open(dir);
    if (!opened.ok) throw new Error(opened.error.message);
    const store = opened.store;
    const plan = (await store.requests.list()).requests.find((r) => r.type === 'plan_approval' && r.from === 'alice');
    expect(plan?.status).toBe('approved');
    expect(plan?.response?.by).toBe('human');
    expect(plan?.response?.signed).not.toBeNull();

    // A hostile subject appears on an open board within seconds, without reload, as text.
    const board = await ctx.newPage();
    board.on('dialog', (dlg) => { dialogs.push(dlg.message()); void dlg.dismiss(); });
    await board.goto(`${base}/board`);
    await board.locator('#live.on').waitFor({ timeout: 10_000 });
    const made = Date.now();
    const created = await store.tasks.create({ subject: HOSTILE });
    expect(created.ok).toBe(true);
    await board.getByText('window.__pwned=2', { exact: false }).waitFor({ timeout: 10_000 });
    process.stdout.write(`web view: a new task reached the open board ${Date.now() - made} ms after it was written\n`);
    expect(await board.locator('main img').count()).toBe(0);
    expect(await board.locator('main script').count()).toBe(0);
    expect(await board.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned ?? 0)).toBe(0);
    expect(dialogs).toEqual([]);
    await board.setViewportSize({ width: 1280, height: 800 });
    await board.screenshot({ path: path.join(REPO, 'bench', 'out', 'web-board-desktop.png'), fullPage: true }).catch(() => undefined);

    // The demo goes on to the end with the plan approved from the browser.
    await waitFor(async () => {
      const { tasks } = await store.tasks.snapshot();
      return tasks.filter((t) => t.subject !== HOSTILE).length === 4 && tasks.filter((t) => t.subject !== HOSTILE).every((t) => t.status === 'completed');
    }, 'the demo tasks to complete', 120_000, 200).catch(async (err) => {
      throw new Error(`${(err as Error).message}\n--- screen ---\n${await d.screen()}`);
    });
  }, 300_000);
});
