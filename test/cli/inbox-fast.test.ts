// The short path of `inbox read` (cli/inbox-fast.ts) prints what the full verb prints and moves the
// cursor the same way, and every case it does not handle (a flag it does not know, a name this
// process may not act as, a member not on the roster, a folder the store refuses) gets the full
// verb's message. Real child processes of bin/teamux; `--wait 0` forces the full verb for comparison.
import { appendFileSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliProcess, makeTeam } from '../helpers/team.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function team() {
  const t = await makeTeam(['amy', 'bob']);
  cleanup.push(t.cleanup);
  return t;
}

describe('inbox read short path', () => {
  it('inbox-fast.prints-and-commits-as-the-full-verb-does', async () => {
    const results: Record<string, string[]> = { short: [], full: [] };
    for (const mode of ['short', 'full'] as const) {
      const t = await team();
      const extra = mode === 'full' ? ['--wait', '0'] : [];
      const read = async (...more: string[]) => {
        const r = await cliProcess(['inbox', 'read', '--as', 'amy', '--team-dir', t.dir, ...more, ...extra]);
        return `${r.code}|${r.out}|${r.err}`;
      };
      await t.store.send({ from: 'lead', to: 'amy', type: 'message', text: 'first\nline' });
      await t.store.send({ from: 'bob', to: 'amy', type: 'result', text: 'done \u001b[31mred', request_id: 'req-abcd1234' });
      results[mode]!.push((await read('--peek')).replace(/msg-[0-9a-f-]+/g, 'ID').replace(/\d\d:\d\d:\d\d/g, 'T'));
      results[mode]!.push((await read()).replace(/\d\d:\d\d:\d\d/g, 'T'));
      // A bad line and a good one: the bad one is reported once and skipped, the cursor moves past both.
      appendFileSync(t.store.paths.inbox('amy'), '{"id":"x","from":"Nope"}\n');
      await t.store.send({ from: 'lead', to: 'amy', type: 'message', text: 'third' });
      results[mode]!.push((await read('--json')).replace(/msg-[0-9a-f-]+/g, 'ID').replace(/"time":"[^"]+"/g, '"time":"T"').replaceAll(t.dir, 'DIR'));
      results[mode]!.push(await read());
    }
    // What the full verb prints for an empty inbox with --wait 0 differs by design (a timeout); compare the rest.
    expect(results.short!.slice(0, 3)).toEqual(results.full!.slice(0, 3));
    expect(results.short![1]).toMatch(/^0\|T lead → amy message: first\\nline\nT bob → amy result \[req-abcd1234\]: done \\e\[31mred\n\|$/);
    expect(results.short![2]).toContain('"text":"third"');
    expect(results.short![2]).toContain('skipped');
    expect(results.short![3]).toBe('0||');
  }, 120_000);

  it('inbox-fast.every-case-it-does-not-handle-gets-the-full-verbs-message', async () => {
    const t = await team();
    await t.store.send({ from: 'lead', to: 'amy', type: 'message', text: 'hello' });
    const run = (argv: string[], env: Record<string, string> = {}) => cliProcess(['inbox', 'read', ...argv], { TEAMUX_TEAM_DIR: '', TEAMUX_MEMBER: '', ...env });
    // Another member's mail from inside amy's pane.
    let r = await run(['--as', 'bob', '--team-dir', t.dir], { TEAMUX_MEMBER: 'amy' });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/belongs to member amy/);
    // Not on the roster; the operator's name.
    r = await run(['--as', 'zed', '--team-dir', t.dir]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/"zed" is not a member/);
    r = await run(['--as', 'human', '--team-dir', t.dir]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/operator/);
    // A flag the verb does not know.
    r = await run(['--as', 'amy', '--team-dir', t.dir, '--bogus']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/bogus/);
    // TEAMUX_MEMBER alone names the reader, as in a pane.
    r = await run(['--team-dir', t.dir], { TEAMUX_MEMBER: 'amy' });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/lead → amy message: hello/);
    // The inboxes folder replaced by a link: refused, nothing read through it.
    const elsewhere = path.join(t.dir, '..', 'elsewhere');
    mkdirSync(elsewhere);
    renameSync(t.store.paths.inboxes, path.join(t.dir, 'inboxes.old'));
    symlinkSync(elsewhere, t.store.paths.inboxes);
    r = await run(['--as', 'amy', '--team-dir', t.dir]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/symbolic link/);
    rmSync(t.store.paths.inboxes);
    renameSync(path.join(t.dir, 'inboxes.old'), t.store.paths.inboxes);
    // team.json broken by hand: the full verb names the file.
    writeFileSync(t.store.paths.config, '{"version": 1, "members": [');
    r = await run(['--as', 'amy', '--team-dir', t.dir]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('team.json');
  }, 120_000);
});
