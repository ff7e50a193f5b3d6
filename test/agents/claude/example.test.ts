// The README's Claude Code example, end to end with the real binary: `teamux start
// examples/claude/team.yaml` with no API key, in a private tmux server. The operator approves amy's
// plan and bob's permission with C-a a; the lead's shutdown handshake ends both teammates. Needs the
// `teamux mcp` server (the team tools); skipped with a notice where the build has none.
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TeamStore } from '../../../src/store/team.js';
import { claudeCodeForTests, claudeOnPath, userHome } from '../../helpers/claude-code.js';
import { BIN, REPO, tempDir, waitFor } from '../../helpers/team.js';
import { TmuxDriver } from '../../helpers/tmux.js';

const CLAUDE = claudeCodeForTests();
const MCP = existsSync(path.join(REPO, 'dist', 'cli', 'mcp.js'));
if (!MCP) process.stderr.write('\n  NOTICE: this build has no `teamux mcp`: the Claude Code example test is SKIPPED.\n\n');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.skipIf(!CLAUDE || !MCP)('examples/claude (real binary, e2e in tmux)', () => {
  it('claude.example-runs-offline-plan-permission-and-handshake', async () => {
    const tmp = tempDir('teamux-claude-example-');
    const root = tmp.dir;
    cpSync(path.join(REPO, 'examples', 'claude'), root, { recursive: true, filter: (src) => !src.includes('.teamux') && !src.includes('claude-demo') });
    const teamDir = path.join(root, '.teamux', 'claude');
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
    const user = userHome(root);
    const before = user.snapshot();
    const env = `env -u ANTHROPIC_API_KEY -u TEAMUX_DEMO_URL -u TMUX -u TMUX_PANE PATH=${pathDir}:${process.env.PATH} HOME=${user.home}`;
    const d = await TmuxDriver.start(`cd ${root} && ${env} ${process.execPath} ${BIN} start team.yaml; echo TEAMUX-EXIT=$?; sleep 600`, 220, 55);
    cleanups.push(() => d.kill());
    const opened = await waitFor(() => (existsSync(path.join(teamDir, 'team.json')) ? TeamStore.open(teamDir) : null), 'the team folder', 30_000);
    if (!opened.ok) throw new Error(opened.error.message);
    store = opened.store;

    await d.waitFor(/plan amy→human/, "amy's plan request in the sidebar", 120_000);
    expect(existsSync(path.join(root, 'claude-demo', 'design.md'))).toBe(false);
    await d.keys('C-a', 'a');
    await waitFor(() => existsSync(path.join(root, 'claude-demo', 'design.md')), 'the design note written after approval', 120_000, 100);
    await d.waitFor(/permission bob→human: Bash: touch claude-demo/, "bob's permission request", 120_000);
    await d.keys('C-a', 'a');
    const done = await waitFor(async () => {
      const t = (await store!.tasks.snapshot()).tasks;
      return t.length === 2 && t.every((x) => x.status === 'completed') ? t : null;
    }, 'both tasks completed', 120_000, 200);
    expect(done.map((t) => t.result)).toEqual(['claude-demo/design.md', 'claude-demo/design.md is there']);
    expect(readFileSync(path.join(root, 'claude-demo', 'design.md'), 'utf8')).toContain('A parser for key = value lines.');
    expect(existsSync(path.join(root, 'claude-demo', 'checked'))).toBe(true);
    // The handshake: both teammates approved with respond_shutdown, and teamux ended them.
    await waitFor(async () => (await store!.roster()).filter((m) => m.kind === 'teammate').every((m) => m.reportedStatus === 'exited'), 'the teammates ended by the handshake', 120_000, 200);
    const shutdowns = (await store.requests.list()).requests.filter((r) => r.type === 'shutdown');
    expect(shutdowns.map((r) => [r.to, r.status])).toEqual([['amy', 'approved'], ['bob', 'approved']]);
    expect(user.snapshot()).toEqual(before);
  }, 600_000);
});
