// Team data is written by teammates, whose models may put terminal escape sequences in it. The CLI,
// run as a real process, must show every control character escaped in human-readable output (stdout
// and stderr), and give the exact bytes back in --json output.
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { visible } from '../../src/protocol/visible.js';
import { cliProcess, makeTeam } from '../helpers/team.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

/** Each hostile sequence, with a printable marker so it can be found in the output. */
const HOSTILE: Record<string, string> = {
  osc52: '\x1b]52;c;cm0gLXJmIH4K\x07',
  osc0: '\x1b]0;owned title\x1b\\',
  clear: '\x1b[2J\x1b[H',
  dcs: '\x1bP1$r0m\x1b\\',
  c1csi: '\u009b2J',
  c1osc: '\u009d0;title\u009c',
  bel: 'ring\x07\x07',
  backspace: 'approved\b\b\b\b\b\b\b\brejected',
  cr: 'all good\rFORGED LINE',
  bidi: 'safe\u202etxt.exe',
  del: 'x\x7fy',
};
const ALL = Object.values(HOSTILE).join(' | ');

/** Assert that text holds nothing a terminal would act on (LF is fine: it is how lines end). */
function expectInert(text: string, what: string): void {
  expect(text, `${what}: ESC`).not.toMatch(/\x1b/);
  expect(text, `${what}: C1`).not.toMatch(/[\u0080-\u009f]/);
  expect(text, `${what}: BEL/BS/CR/other C0`).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
  expect(text, `${what}: bidi`).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
}

describe('cli escapes', () => {
  it('visible.escapes-every-control-character-and-keeps-json-values', () => {
    expect(visible('a\x1b[2Jb\x07c\u009bd\re\tf\ng\x7f')).toBe('a\\e[2Jb\\x07c\\u009bd\\re\\tf\\ng\\u007f');
    expect(visible('one\ntwo\r', { lines: true })).toBe('one\ntwo\\r');
    const json = JSON.stringify({ s: ALL });
    expect(JSON.parse(visible(json, { lines: true }))).toEqual({ s: ALL });
    expectInert(visible(ALL), 'visible');
  });

  it('cli.human-output-escapes-team-data-and-json-keeps-it-exact', async () => {
    const t = await makeTeam(['amy', 'bob']);
    cleanup = t.cleanup;
    const env = { TEAMUX_TEAM_DIR: t.dir };
    // Roles come from the layout, or a hand-edited team.json: put the payload there too.
    const cfgFile = path.join(t.dir, 'team.json');
    const cfg = JSON.parse(readFileSync(cfgFile, 'utf8'));
    cfg.members[1].role = `worker ${ALL}`;
    writeFileSync(cfgFile, JSON.stringify(cfg));

    const human: Array<{ argv: string[]; out: string; err: string }> = [];
    const run = async (argv: string[]): Promise<{ code: number; out: string; err: string }> => {
      const r = await cliProcess(argv, env);
      human.push({ argv, out: r.out, err: r.err });
      return r;
    };
    expect((await run(['task', 'add', '--subject', `subject ${ALL}`, '--description', `line one\n${ALL}`])).code).toBe(0);
    expect((await run(['task', 'claim', '1', '--as', 'amy'])).code).toBe(0);
    expect((await run(['task', 'complete', '1', '--as', 'amy', '--result', `result ${ALL}`])).code).toBe(0);
    expect((await run(['msg', 'send', '--from', 'amy', '--to', 'bob', `message ${ALL}`])).code).toBe(0);
    expect((await run(['plan', 'submit', '--as', 'amy', '--to', 'lead', `plan ${ALL}`])).code).toBe(0);
    // Refusals and errors that quote team data go through the same net.
    expect((await run(['msg', 'send', '--from', 'amy', '--to', 'zed', `x ${ALL}`])).code).toBe(1);
    expect((await run(['task', 'add', '--subject', 's', '--blocked-by', `1,${'\x1b[2J'}`])).code).toBe(1);
    for (const argv of [['task', 'list'], ['task', 'show', '1'], ['inbox', 'read', '--as', 'bob', '--peek'], ['request', 'list'], ['team', 'show'], ['plan', 'status', '--as', 'amy']]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(0);
    }
    for (const h of human) {
      expectInert(h.out, `stdout of ${h.argv.join(' ')}`);
      expectInert(h.err, `stderr of ${h.argv.join(' ')}`);
    }
    const shown = human.map((h) => h.out).join('');
    // The escapes are there to be read: ESC as \e, BEL as \x07, C1 CSI as \u009b.
    expect(shown).toContain('subject \\e]52;c;cm0gLXJmIH4K\\x07');
    expect(shown).toContain('\\u009b2J');
    expect(shown).toContain('all good\\rFORGED LINE');
    // A newline inside a message cannot forge a line of `inbox read`: one message, one line.
    const inbox = human.find((h) => h.argv[0] === 'inbox')!.out.trimEnd().split('\n');
    expect(inbox).toHaveLength(1);

    // --json gives the exact strings back.
    const json = async (argv: string[]): Promise<Record<string, unknown>> => {
      const r = await cliProcess([...argv, '--json'], env);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(r.out, 'JSON output has no raw ESC or C1').not.toMatch(/[\x1b\u0080-\u009f]/);
      return JSON.parse(r.out) as Record<string, unknown>;
    };
    const task = (await json(['task', 'show', '1'])) as { subject: string; description: string; result: string };
    expect(task.subject).toBe(`subject ${ALL}`);
    expect(task.description).toBe(`line one\n${ALL}`);
    expect(task.result).toBe(`result ${ALL}`);
    const listed = (await json(['task', 'list'])) as { tasks: Array<{ subject: string }> };
    expect(listed.tasks[0]!.subject).toBe(`subject ${ALL}`);
    const inboxJson = (await json(['inbox', 'read', '--as', 'bob', '--peek'])) as { messages: Array<{ text: string }> };
    expect(inboxJson.messages.map((m) => m.text)).toEqual([`message ${ALL}`]);
    const reqs = (await json(['request', 'list'])) as { requests: Array<{ body: string }> };
    expect(reqs.requests.map((q) => q.body)).toEqual([`plan ${ALL}`]);
    const team = (await json(['team', 'show'])) as { members: Array<{ role: string }> };
    expect(team.members[1]!.role).toBe(`worker ${ALL}`);
  });
});
