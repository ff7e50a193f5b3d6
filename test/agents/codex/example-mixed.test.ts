// The mixed example, end to end with the real binaries: `teamux start examples/mixed/team.yaml` with
// no API key, in a private tmux server: a Claude Code lead (Messages API) and a Codex CLI teammate
// (Responses API) on the demo model. The operator approves cody's plan and his permission with C-a a;
// the lead's shutdown handshake ends him; ~/.claude and ~/.codex are untouched.
import { cpSync, existsSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TeamStore } from '../../../src/store/team.js';
import { agentCliForTests, claudeCodeForTests, claudeOnPath, userHome } from '../../helpers/claude-code.js';
import { BIN, REPO, tempDir, waitFor } from '../../helpers/team.js';
import { TmuxDriver } from '../../helpers/tmux.js';

const CLAUDE = claudeCodeForTests();
const CODEX = agentCliForTests('codex');
const MCP = existsSync(path.join(REPO, 'dist', 'cli', 'mcp.js'));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.skipIf(!CLAUDE || !CODEX || !MCP)('examples/mixed (real binaries, e2e in tmux)', () => {
  it('mixed.example-runs-offline-claude-lead-codex-plan-permission-and-handshake', async () => {
    const tmp = tempDir('teamux-mixed-example-');
    const root = tmp.dir;
    cpSync(path.join(REPO, 'examples', 'mixed'), root, { recursive: true, filter: (src) => !src.includes('.teamux') && !src.includes('mixed-demo') });
    const teamDir = path.join(root, '.teamux', 'mixed');
    let store: TeamStore | null = null;
    cleanups.push(async () => {
      const pids = ((await store?.config().catch(() => null))?.members ?? []).map((m) => m.pid).filter((p): p is number => p !== null);
      await waitFor(() => pids.every((p) => { try { process.kill(p, 0); return false; } catch { return true; } }), 'member processes to exit', 30_000, 50).catch(() => undefined);
      // Hooks still finishing (SessionEnd, the detached Stop bookkeeping) may write a moment longer.
      await waitFor(() => {
        try {
          rmSync(root, { recursive: true, force: true });
          return true;
        } catch {
          return false;
        }
      }, 'the test folder removed', 30_000, 200);
    });
    const pathDir = claudeOnPath(root, CLAUDE!);
    claudeOnPath(root, CODEX!, 'codex');
    const user = userHome(root);
    const before = user.snapshot();
    const env = `env -u ANTHROPIC_API_KEY -u TEAMUX_DEMO_URL -u TMUX -u TMUX_PANE PATH=${pathDir}:${process.env.PATH} HOME=${user.home}`;
    const d = await TmuxDriver.start(`cd ${root} && ${env} ${process.execPath} ${BIN} start team.yaml; echo TEAMUX-EXIT=$?; sleep 600`, 220, 55);
    cleanups.push(() => d.kill());
    const opened = await waitFor(() => (existsSync(path.join(teamDir, 'team.json')) ? TeamStore.open(teamDir) : null), 'the team folder', 30_000);
    if (!opened.ok) throw new Error(opened.error.message);
    store = opened.store;

    await d.waitFor(/plan cody→human/, "cody's plan request in the sidebar", 120_000);
    await d.keys('C-a', 'a');
    await d.waitFor(/permission cody→human: Bash: mkdir -p mixed-demo/, "cody's permission request", 120_000);
    expect(existsSync(path.join(root, 'mixed-demo', 'checked'))).toBe(false);
    await d.keys('C-a', 'a');
    await waitFor(() => existsSync(path.join(root, 'mixed-demo', 'checked')), 'mixed-demo/checked made after the permission', 60_000, 100);
    const done = await waitFor(async () => {
      const t = (await store!.tasks.snapshot()).tasks;
      return t.length === 1 && t[0]!.status === 'completed' ? t : null;
    }, 'the task completed', 120_000, 200);
    expect(done[0]!.result).toBe('mixed-demo/checked');
    // The handshake: cody approved with respond_shutdown, and teamux ended Codex.
    await waitFor(async () => (await store!.roster()).find((m) => m.name === 'cody')?.reportedStatus === 'exited', 'cody ended by the handshake', 120_000, 200);
    expect((await store.requests.list()).requests.filter((r) => r.type === 'shutdown').map((r) => [r.to, r.status])).toEqual([['cody', 'approved']]);
    expect(user.snapshot()).toEqual(before);
  }, 600_000);
});
