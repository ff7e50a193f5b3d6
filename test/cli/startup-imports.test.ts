// The CLI's floor: `teamux --version` loads only the entry and the verb table, small team verbs
// (inbox read, task claim) never load the UI, node-pty, the SDK, the MCP server or the demo, and a
// plain `inbox read` loads no package at all (no zod, no lock library, not the whole store). Real
// child processes, with a module hook that reports every module they load. These are about dist/cli/'s
// module graph (TEAMUX_BUNDLE=0); test/cli/bundle.test.ts checks the same of the bundle.
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, makeTeam, REPO } from '../helpers/team.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

/** A module hook that prints each resolved module URL on stderr. */
const HOOK = path.join(REPO, 'test', 'fixtures', 'cli', 'trace-imports.mjs');

/** Run bin/teamux with the hook; the module URLs it loaded. */
function loaded(argv: string[]): Promise<{ code: number; out: string; modules: string[] }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', HOOK, BIN, ...argv], { cwd: REPO, env: { ...process.env, TEAMUX_TEAM_DIR: '', TEAMUX_BUNDLE: '0' } }, (error, stdout, stderr) => {
      const modules = stderr.split('\n').filter((l) => l.startsWith('LOADED ')).map((l) => l.slice(7).replace(`file://${REPO.replace(/\/$/, '')}`, ''));
      resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout, modules });
    });
  });
}

const HEAVY = [/node_modules\/(blessed|node-pty|@anthropic-ai|@modelcontextprotocol|@xterm|chokidar|yaml)\//, /\/dist\/(ui|app|agent|mcp|demo|vt|host|claude)\//];

describe('cli start-up', () => {
  it('startup.version-loads-only-the-entry-and-the-verb-table', async () => {
    const r = await loaded(['--version']);
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe('teamux 0.1.0');
    const ours = r.modules.filter((m) => m.includes('/dist/'));
    expect(ours.sort()).toEqual(['/dist/cli/main.js', '/dist/cli/table.js', '/dist/cli/verb.js', '/dist/protocol/visible.js']);
    expect(r.modules.filter((m) => m.includes('node_modules'))).toEqual([]);
  }, 60_000);

  it('startup.inbox-read-and-task-claim-load-no-ui-pty-sdk-mcp-or-demo', async () => {
    const t = await makeTeam(['amy']);
    cleanup.push(t.cleanup);
    await t.store.send({ from: 'lead', to: 'amy', type: 'message', text: 'hello' });
    await t.store.tasks.create({ subject: 'one' });
    for (const argv of [['inbox', 'read', '--as', 'amy'], ['task', 'claim', '--as', 'amy']]) {
      const r = await loaded([...argv, '--team-dir', t.dir]);
      expect(r.code, argv.join(' ')).toBe(0);
      // The plain inbox read takes the short path (cli/inbox-fast.ts): the inbox module and nothing of the rest.
      const inbox = argv[0] === 'inbox';
      expect(r.modules.some((m) => m.endsWith('/dist/store/team.js')), argv.join(' ')).toBe(!inbox);
      if (inbox) {
        expect(r.out).toMatch(/lead → amy message: hello/);
        expect(r.modules.filter((m) => m.includes('node_modules'))).toEqual([]);
        expect(r.modules.some((m) => m.endsWith('/dist/store/inbox.js'))).toBe(true);
      }
      for (const re of HEAVY) expect(r.modules.filter((m) => re.test(m)), `${argv.join(' ')} loads ${re}`).toEqual([]);
    }
  }, 60_000);
});
