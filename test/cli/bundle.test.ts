// The bundled CLI (scripts/bundle.mjs → dist/bundle/): bin/teamux runs it only while it is at least
// as new as dist/cli/main.js (a `tsc` after it is never shadowed by stale code), it still loads a
// verb's code only when the verb runs, and it works on its own: in a copy of the build whose
// dist/cli/ is deleted, the verbs and `teamux start` of plain commands in a real pty still work.
// Real child processes, with the module hook of startup-imports.test.ts.
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScreen } from '../helpers/screen-pty.js';
import { REPO, tempDir, waitFor } from '../helpers/team.js';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const HOOK = path.join(REPO, 'test', 'fixtures', 'cli', 'trace-imports.mjs');

/** A private copy of the build (bin/, dist/, package.json; node_modules linked), bundled. */
function buildCopy(): string {
  const tmp = tempDir('teamux-bundle-');
  cleanup.push(tmp.cleanup);
  const root = path.join(tmp.dir, 'teamux');
  mkdirSync(root);
  for (const part of ['bin', 'dist']) cpSync(path.join(REPO, part), path.join(root, part), { recursive: true });
  rmSync(path.join(root, 'dist', 'bundle'), { recursive: true, force: true });
  cpSync(path.join(REPO, 'package.json'), path.join(root, 'package.json'));
  symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  execFileSync(process.execPath, [path.join(REPO, 'scripts', 'bundle.mjs'), root], { stdio: 'pipe' });
  return root;
}

/** Run ROOT/bin/teamux with the module hook; exit code, output and the modules it loaded (relative to ROOT). */
function run(root: string, argv: string[], env: Record<string, string> = {}, cwd = root): Promise<{ code: number; out: string; err: string; modules: string[] }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', HOOK, path.join(root, 'bin', 'teamux'), ...argv], { cwd, env: { ...process.env, TEAMUX_TEAM_DIR: '', ...env } }, (error, stdout, stderr) => {
      const lines = stderr.split('\n');
      const modules = lines.filter((l) => l.startsWith('LOADED ')).map((l) => l.slice(7).replace(`file://${root}`, ''));
      resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout, err: lines.filter((l) => !l.startsWith('LOADED ')).join('\n'), modules });
    });
  });
}

/** The packages esbuild put into the loaded chunks (it names each bundled file in a comment). */
function bundledPackages(root: string, modules: string[]): string[] {
  const found = new Set<string>();
  for (const m of modules.filter((x) => x.startsWith('/dist/bundle/'))) {
    for (const hit of readFileSync(path.join(root, m), 'utf8').matchAll(/^\/\/ .*node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)) found.add(hit[1]!);
  }
  return [...found].sort();
}

describe('bundled cli', () => {
  it('bundle.runs-only-while-fresh', async () => {
    const root = buildCopy();
    const fresh = await run(root, ['--version']);
    expect(fresh.out.trim()).toBe('teamux 0.1.0');
    expect(fresh.modules).toContain('/dist/bundle/main.js');
    expect(fresh.modules.filter((m) => m.startsWith('/dist/cli/'))).toEqual([]);
    // --version stays the floor in the bundle too: no package is loaded or bundled into what it loads.
    expect(fresh.modules.filter((m) => m.includes('node_modules'))).toEqual([]);
    expect(bundledPackages(root, fresh.modules)).toEqual([]);
    // Forced off: dist/cli/.
    const off = await run(root, ['--version'], { TEAMUX_BUNDLE: '0' });
    expect(off.modules).toContain('/dist/cli/main.js');
    expect(off.modules.filter((m) => m.startsWith('/dist/bundle/'))).toEqual([]);
    // A tsc after the bundle (dist/cli/main.js newer): the stale bundle is not run.
    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(root, 'dist', 'cli', 'main.js'), later, later);
    const stale = await run(root, ['--version']);
    expect(stale.out.trim()).toBe('teamux 0.1.0');
    expect(stale.modules).toContain('/dist/cli/main.js');
    expect(stale.modules.filter((m) => m.startsWith('/dist/bundle/'))).toEqual([]);
  }, 120_000);

  it('bundle.verbs-work-without-dist-cli-and-load-only-their-own-code', async () => {
    const root = buildCopy();
    rmSync(path.join(root, 'dist', 'cli'), { recursive: true });
    const work = path.join(root, 'work');
    mkdirSync(work);
    const layout = path.join(work, 'team.yaml');
    writeFileSync(layout, 'name: tiny\nlead: { name: lead, role: r, command: bash }\nteammates:\n  - { name: amy, role: r, command: [sh, -c, "true"] }\ntasks:\n  - { id: a, subject: first }\n');
    expect((await run(root, ['validate', layout])).out).toMatch(/ok — team "tiny": lead \+ 1 teammate, 1 seed task/);
    const init = await run(root, ['init', layout]);
    expect(init.code, init.err).toBe(0);
    const dir = init.out.trim();
    expect(dir).toBe(path.join(work, '.teamux', 'tiny'));
    const claim = await run(root, ['task', 'claim', '--as', 'amy', '--json', '--team-dir', dir]);
    expect(claim.code, claim.err).toBe(0);
    expect(JSON.parse(claim.out)).toMatchObject({ ok: true, subject: 'first', owner: 'amy', status: 'in_progress' });
    // A team verb loads neither the UI nor node-pty, the SDKs or the demo model (as in dist/cli/).
    expect(claim.modules.filter((m) => /node_modules\/(blessed|node-pty|@anthropic-ai|@modelcontextprotocol|chokidar)\//.test(m))).toEqual([]);
    expect(bundledPackages(root, claim.modules)).not.toContain('@xterm/headless');
    expect((await run(root, ['msg', 'send', '--from', 'lead', '--to', 'amy', 'hello there', '--team-dir', dir])).code).toBe(0);
    expect((await run(root, ['inbox', 'read', '--as', 'amy', '--team-dir', dir])).out).toMatch(/lead → amy message: hello there/);
    // Bad input still gets its message and exit code, not a trace.
    const bad = path.join(work, 'bad.yaml');
    writeFileSync(bad, 'name: other\nlead: { name: lead, role: r, command: bash, colour: red }\n');
    const v = await run(root, ['init', bad]);
    expect(v.code).toBe(1);
    expect(v.err).toMatch(/bad\.yaml:2:\d+ lead\.colour/);
  }, 120_000);

  it('bundle.a-short-path-claim-loads-one-module-past-main-and-not-node-crypto', async () => {
    const root = buildCopy();
    const work = path.join(root, 'work');
    mkdirSync(work);
    const layout = path.join(work, 'team.yaml');
    writeFileSync(layout, 'name: tiny\nlead: { name: lead, role: r, command: bash }\nteammates:\n  - { name: amy, role: r, command: [sh, -c, "true"] }\ntasks:\n  - { id: a, subject: first }\n  - { id: b, subject: second }\n  - { id: c, subject: third }\n');
    const init = await run(root, ['init', layout]);
    expect(init.code, init.err).toBe(0);
    const dir = init.out.trim();
    // The first claim builds the board index (loaded by its fixed name), then the ready list answers.
    const first = await run(root, ['task', 'claim', '--as', 'amy', '--json', '--team-dir', dir]);
    expect(first.code, first.err).toBe(0);
    // Racing claimers start at a ready task picked by pid: any of the three.
    const one = JSON.parse(first.out) as { ok: boolean; id: string; owner: string };
    expect(one).toMatchObject({ ok: true, owner: 'amy' });
    expect(first.modules.filter((m) => m.startsWith('/dist/bundle/task-index'))).toEqual(['/dist/bundle/task-index.js']);
    const second = await run(root, ['task', 'claim', '--as', 'amy', '--json', '--team-dir', dir]);
    expect(second.code, second.err).toBe(0);
    const two = JSON.parse(second.out) as { ok: boolean; id: string; owner: string };
    expect(two).toMatchObject({ ok: true, owner: 'amy' });
    expect(two.id).not.toBe(one.id);
    // One file with the short path's whole graph (no chunks), and no node:crypto (temp names come from /dev/urandom).
    const floor = (await run(root, ['--version'])).modules.filter((m) => m.startsWith('/dist/'));
    expect(floor).toContain('/dist/bundle/main.js');
    expect(second.modules.filter((m) => m.startsWith('/dist/') && !floor.includes(m))).toEqual(['/dist/bundle/task-claim-fast.js']);
    expect(second.modules).not.toContain('node:crypto');
    // What the short path does not handle still runs the full verb from the same bundle: a claim by id of a taken task.
    const taken = await run(root, ['task', 'claim', one.id, '--as', 'amy', '--team-dir', dir], { TEAMUX_STORE: 'folder' });
    expect(taken.code, taken.err).toBe(3);
    expect(taken.err).toMatch(/refused \(/);
    // No temp file is left behind by the synchronous writes.
    expect(readdirSync(path.join(dir, 'tasks')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  }, 120_000);

  it('bundle.start-shows-every-pane-in-a-real-terminal', async () => {
    const root = buildCopy();
    rmSync(path.join(root, 'dist', 'cli'), { recursive: true });
    const work = path.join(root, 'work');
    mkdirSync(work);
    const layout = path.join(work, 'team.yaml');
    const pane = (mark: string): string => `[sh, -c, "printf '%s%s\\\\n' ${mark} -MARK; exec sleep 600"]`;
    writeFileSync(layout, `name: boot\nlead: { name: lead, role: r, command: ${pane('LEAD')} }\nteammates:\n  - { name: amy, role: r, command: ${pane('AMY')} }\n`);
    const started = startScreen(path.join(root, 'bin', 'teamux'), layout, { cwd: work, env: process.env as Record<string, string>, cleanups: cleanup });
    await waitFor(() => started.screen().includes('LEAD-MARK') && started.screen().includes('AMY-MARK'), 'both panes on screen', 30_000);
    await started.stop();
  }, 120_000);
});
