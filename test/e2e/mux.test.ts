// End-to-end: `teamux start` inside a real tmux server on a private socket, driven with send-keys
// and read with capture-pane, on the scripted example team (members use the protocol via the CLI).
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TeamStore } from '../../src/store/team.js';
import { BIN, REPO, cliProcess, tempDir, waitFor } from '../helpers/team.js';
import { TmuxDriver } from '../helpers/tmux.js';

const drivers: TmuxDriver[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const d of drivers.splice(0)) await d.kill();
  for (const c of cleanups.splice(0)) c();
});

/** Copy the scripted example into a temp folder (its team folder lands there). */
function scriptedTeam(): { dir: string; layout: string; teamDir: string } {
  const tmp = tempDir('teamux-e2e-');
  cleanups.push(tmp.cleanup);
  cpSync(path.join(REPO, 'examples', 'scripted'), tmp.dir, { recursive: true, filter: (src) => !src.includes('.teamux') });
  return { dir: tmp.dir, layout: path.join(tmp.dir, 'team.yaml'), teamDir: path.join(tmp.dir, '.teamux', 'scripted') };
}

/** A layout file in a fresh temp folder (removed after the test); returns its path. */
function layoutFile(name: string, yaml: string): { layout: string; dir: string } {
  const tmp = tempDir('teamux-e2e-');
  cleanups.push(tmp.cleanup);
  const layout = path.join(tmp.dir, `${name}.yaml`);
  writeFileSync(layout, yaml);
  return { layout, dir: tmp.dir };
}

/** One bash lead, no sidebar. */
const ONE_SHELL = 'name: one\nsidebar: { hidden: true }\nlead: { name: lead, role: shell, command: [bash, --norc, --noprofile] }\n';

async function startMux(layout: string, cols = 160, rows = 45, env: Record<string, string> = {}, args = ''): Promise<TmuxDriver> {
  const d = await TmuxDriver.start(`${process.execPath} ${BIN} start ${layout}${args ? ` ${args}` : ''}; echo TEAMUX-EXIT=$?; sleep 600`, cols, rows, { WORK_SECONDS: '1', ...env });
  drivers.push(d);
  return d;
}

async function open(teamDir: string): Promise<TeamStore> {
  const r = await waitFor(() => (existsSync(path.join(teamDir, 'team.json')) ? TeamStore.open(teamDir) : null), 'the team folder');
  if (!r.ok) throw new Error(r.error.message);
  return r.store;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('teamux start (e2e in tmux)', () => {
  it('panes show output, the sidebar follows the folder, approve and broadcast go through the protocol, shutdown closes the pane', async () => {
    const t = scriptedTeam();
    const d = await startMux(t.layout);
    // Every pane shows its process's output.
    await d.waitFor((s) => s.includes('[lead] watching the inbox') && s.includes('[alice] waiting for approval') && s.includes('[bob]'), 'all three panes', 45_000);
    await d.waitFor(/▶plan alice→human/, 'alice\'s plan request in the sidebar');
    // A task added from another process appears in the sidebar.
    const add = await cliProcess(['task', 'add', '--subject', 'Sidebar canary task', '--team-dir', t.teamDir]);
    expect(add.code, add.err).toBe(0);
    await d.waitFor(/Sidebar canary task/, 'the new task in the sidebar', 5_000);
    // The approve key writes an approving response; alice acts on it.
    await d.keys('C-a', 'a');
    await d.waitFor(/\[alice\] plan approved/, 'alice to see the approval');
    const store = await open(t.teamDir);
    const plans = (await store.requests.list()).requests.filter((r) => r.type === 'plan_approval');
    expect(plans).toMatchObject([{ from: 'alice', to: 'human', status: 'approved', response: { by: 'human', approve: true, signed: { claim: { member: 'alice', approver: 'human', decision: 'approve' } } } }]);
    // A broadcast reaches every inbox and is never typed into a pane.
    await d.keys('C-a', 'b');
    await d.waitFor(/broadcast:/, 'the broadcast prompt');
    await d.type('standup in five');
    await d.keys('Enter');
    await d.waitFor(/broadcast delivered to 3 inboxes/, 'the broadcast confirmation');
    const { events } = await store.events.read();
    const sent = events.filter((e) => e.type === 'message_sent' && e.messageType === 'broadcast' && e.excerpt === 'standup in five');
    expect(sent.map((e) => e.to).sort()).toEqual(['alice', 'bob', 'lead']);
    // The keys speak as the operator, not as the lead.
    expect(new Set(sent.map((e) => e.from))).toEqual(new Set(['human']));
    // The shutdown handshake with bob (after C-a s asks) ends with his process gone and his pane kept, exited.
    const bob = (await store.roster()).find((m) => m.name === 'bob')!;
    expect(bob.pid).toBeGreaterThan(0);
    await d.keys('C-a', '3');
    await d.keys('C-a', 's');
    await d.waitFor(/shut down bob\? \(y\/n\)/, 'the question');
    await d.keys('y');
    await d.waitFor((s) => / 3 bob · .*(exited|ended|killed)/.test(s) && /shut down bob/.test(s), 'bob\'s pane to show his exit');
    await waitFor(() => !pidAlive(bob.pid!), 'bob\'s process to be gone', 5_000);
    const shutdowns = (await store.requests.list()).requests.filter((r) => r.type === 'shutdown' && r.to === 'bob');
    expect(shutdowns).toMatchObject([{ from: 'human', status: 'approved', response: { by: 'bob' } }]);
    // Quit: a handshake with everyone; nothing is left running.
    const pids = (await store.roster()).map((m) => m.pid).filter((p): p is number => p !== null);
    await d.keys('C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit');
    for (const pid of pids) expect(pidAlive(pid), `pid ${pid}`).toBe(false);
  }, 90_000);

  // A start on an unfinished run resumes it (its requests with it: test/e2e/resume.test.ts); a fresh run,
  // asked for with --fresh, begins with none of the earlier run's requests, which go with it to the archive.
  it('requests belong to a run: a fresh run after a restart has none of the old requests and alice waits for a new approval', async () => {
    const t = scriptedTeam();
    const first = await startMux(t.layout);
    await first.waitFor(/▶plan alice→human/, 'alice\'s plan request');
    // A plan request nobody answers in this run.
    const left = await cliProcess(['plan', 'submit', '--as', 'bob', 'left pending', '--team-dir', t.teamDir]);
    expect(left.code, left.err).toBe(0);
    await first.waitFor(/plan bob→human/, 'bob\'s plan request');
    await first.keys('C-a', 'a');
    await first.waitFor(/\[alice\] plan approved/, 'alice to see the approval');
    await first.keys('C-a', 'q');
    await first.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit');
    const store = await open(t.teamDir);
    const run1 = (await store.config()).run;

    const second = await startMux(t.layout, 160, 45, {}, '--fresh');
    await second.waitFor((s) => s.includes('[alice] waiting for approval'), 'alice to wait again');
    await second.waitFor(/▶plan alice→human/, 'alice\'s new plan request');
    // bob's plan of the first run is not pending in this run.
    expect(await second.screen()).not.toMatch(/plan bob→human/);
    expect(await second.screen()).not.toMatch(/\[alice\] plan approved/);
    const fresh = await open(t.teamDir);
    const cfg = await fresh.config();
    expect(cfg.run).not.toBe(run1);
    const plans = (await fresh.requests.list()).requests.filter((r) => r.type === 'plan_approval');
    expect(plans.map((r) => [r.from, r.run === run1 ? 'run1' : 'run2', r.status])).toEqual([['alice', 'run2', 'pending']]);
    // The first run's requests went with it to the archive, as they were.
    const archive = path.join(path.dirname(t.teamDir), 'archive');
    const archived = await open(path.join(archive, readdirSync(archive)[0]!));
    const old = (await archived.requests.list()).requests.filter((r) => r.type === 'plan_approval');
    expect(old.map((r) => [r.from, r.run === run1 ? 'run1' : 'run2', r.status])).toEqual([['alice', 'run1', 'approved'], ['bob', 'run1', 'pending']]);
    await second.keys('C-a', 'q');
    await second.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit');
  }, 120_000);

  it('plan_approver lead: the agent lead enrols its key with the screen, and C-a a cannot answer for the lead', async () => {
    const { layout, dir } = layoutFile('leadapp', [
      'name: leadapp', 'plan_approver: lead',
      'lead: { name: lead, role: approves plans, agent: true }',
      'teammates:', '  - { name: alice, role: needs a plan, agent: true, plan_required: true }', '',
    ].join('\n'));
    mkdirSync(path.join(dir, 'scripts'));
    writeFileSync(path.join(dir, 'scripts', 'lead.yaml'), 'idle_reply: "(the lead reads its inbox)"\nsteps: []\n');
    writeFileSync(path.join(dir, 'scripts', 'alice.yaml'), 'idle_reply: "(alice waits)"\nsteps: []\n');
    const d = await startMux(layout, 160, 45, { ANTHROPIC_API_KEY: '' });
    const teamDir = path.join(dir, '.teamux', 'leadapp');
    const store = await open(teamDir);
    await waitFor(() => existsSync(store.paths.log) && /certified lead's key [0-9a-f]{16} for run run-/.test(readFileSync(store.paths.log, 'utf8')), 'the lead\'s enrolment', 30_000).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await d.screen()}`);
    });
    expect(readFileSync(store.paths.log, 'utf8')).not.toMatch(/refused the enrolment|plan approvals disabled/);
    const sub = await cliProcess(['plan', 'submit', '--as', 'alice', 'my plan', '--team-dir', teamDir]);
    expect(sub.code, sub.err).toBe(0);
    await d.waitFor(/plan alice→lead/, 'alice\'s plan request to the lead');
    await d.keys('C-a', 'a');
    await d.waitFor(/could not approve: .*must be signed by lead/, 'the screen to say the lead answers');
    expect((await store.requests.list()).requests.find((r) => r.type === 'plan_approval')).toMatchObject({ to: 'lead', status: 'pending' });
    await d.keys('C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit', 30_000);
  }, 90_000);

  it('the reject key sends feedback and the teammate resubmits', async () => {
    const t = scriptedTeam();
    const d = await startMux(t.layout);
    await d.waitFor(/▶plan alice→human/, 'alice\'s plan request');
    await d.keys('C-a', 'r');
    await d.waitFor(/reject alice's plan — feedback:/, 'the feedback prompt');
    await d.type('split step 2 in two');
    await d.keys('Enter');
    await d.waitFor(/\[alice\] plan rejected: split step 2 in two/, 'alice to see the rejection');
    await d.waitFor(/resubmitting a revised plan/, 'alice to resubmit');
    const store = await open(t.teamDir);
    await waitFor(async () => (await store.requests.list()).requests.filter((r) => r.type === 'plan_approval').length === 2, 'a second plan request');
    const plans = (await store.requests.list()).requests.filter((r) => r.type === 'plan_approval');
    expect(plans[0]).toMatchObject({ status: 'rejected', response: { approve: false, text: 'split step 2 in two' } });
    expect(plans[1]).toMatchObject({ status: 'pending' });
    expect(plans[1]!.body).toContain('revised: split step 2 in two');
    await d.keys('C-a', 'q');
    await d.keys('C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit');
  }, 90_000);

  it('a resize reaches the pty, and a terminal too small gets a message', async () => {
    const { layout } = layoutFile('one', ONE_SHELL);
    const d = await startMux(layout, 100, 30);
    await d.waitFor(/ 1 lead · shell/, 'the pane');
    await d.type("PS1='$ '; stty size");
    await d.keys('Enter');
    // One title row and the status line: the pane is 100 x 28.
    await d.waitFor(/^28 100$/m, 'stty size before the resize');
    await d.resize(120, 40);
    await d.type('clear; stty size');
    await d.keys('Enter');
    await d.waitFor(/^38 120$/m, 'stty size after the resize');
    await d.resize(10, 5);
    await d.waitFor(/too small/, 'the too-small message');
    await d.resize(100, 30);
    await d.waitFor(/ 1 lead · shell/, 'the pane back');
    await d.keys('C-a', 'q', 'C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit');
  }, 60_000);

  it('typing: echoes written ahead of their frame leave the screen as the pane has it, in colour, after a backspace and a resize', async () => {
    const { layout } = layoutFile('one', ONE_SHELL);
    const d = await startMux(layout, 100, 30);
    await d.waitFor(/ 1 lead · shell/, 'the pane');
    await d.type("PS1='\\[\\e[32m\\]ok\\[\\e[0m\\]$ '");
    await d.keys('Enter');
    await d.waitFor(/^ok\$$/m, 'the coloured prompt');
    // one key per send-keys: each is read alone (the plain-key path) and echoed alone (written ahead)
    const typeKeys = async (text: string): Promise<void> => {
      for (const ch of text) await d.type(ch);
    };
    await typeKeys('echo abcz');
    await d.keys('BSpace');
    await typeKeys('def');
    await d.waitFor(/^ok\$ echo abcdef$/m, 'the typed line');
    const line = (await d.screen(true)).split('\n').find((l) => l.includes('echo abcdef'))!;
    expect(line, 'the prompt green, what was typed in the default colour').toMatch(/\x1b\[32m(\x1b\[49m)?ok\x1b\[39m\$ echo abcdef/);
    await d.keys('Enter');
    await d.waitFor(/^abcdef$/m, 'its output');
    // an echo in colour is drawn by its frame, in that colour
    await d.type("printf '\\e[31m'; cat");
    await d.keys('Enter');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await typeKeys('red');
    await d.waitFor(/^red$/m, 'the red echo');
    expect((await d.screen(true)).split('\n').find((l) => /red/.test(l) && !/printf/.test(l)), 'red').toMatch(/\x1b\[31m(\x1b\[49m)?red/);
    await d.keys('C-c');
    // after a resize (blessed clears and redraws on its own), echoes land where the pane has them
    await d.resize(120, 40);
    await d.type('clear');
    await d.keys('Enter');
    await d.waitFor((s) => !s.includes('abcdef'), 'the cleared pane');
    await typeKeys('xyz');
    await d.waitFor(/^ok\$ xyz$/m, 'the line typed after the resize');
    const rows = (await d.screen()).split('\n');
    expect(rows.filter((r) => r.includes('xyz')), 'typed once, at the prompt').toEqual(['ok$ xyz']);
    await d.keys('C-a', 'q', 'C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit');
  }, 90_000);

  it('a spawn request opens a pane and adds the member', async () => {
    const { layout, dir } = layoutFile('one', ONE_SHELL);
    const d = await startMux(layout, 120, 30);
    await d.waitFor(/ 1 lead · shell/, 'the pane');
    const spawnDir = path.join(dir, '.teamux', 'one', 'spawn');
    writeFileSync(path.join(spawnDir, '.tmp-1'), JSON.stringify({ version: 1, name: 'carol', role: 'Writes docs', command: 'echo spawned-marker', requestedBy: 'lead', time: new Date().toISOString() }));
    // Written the way the tool writes it: a dot-file renamed into place.
    const { renameSync } = await import('node:fs');
    renameSync(path.join(spawnDir, '.tmp-1'), path.join(spawnDir, '1-carol.json'));
    writeFileSync(path.join(spawnDir, '2-bad.json'), '{"version": 1, "name": "Bad Name"}');
    await d.waitFor((s) => / 2 carol · Writes docs/.test(s) && s.includes('spawned-marker') && /exited 0/.test(s), 'carol\'s pane');
    await d.waitFor(/spawn request refused: 2-bad\.json/, 'the refusal of the bad request');
    // Written by hand from a teammate's shell (§12 attack 8): spawning is the lead's, and nobody may
    // take the operator's name.
    const byHand = (file: string, name: string, requestedBy: string) => {
      writeFileSync(path.join(spawnDir, `.${file}`), JSON.stringify({ version: 1, name, role: 'r', command: 'echo no', requestedBy, time: new Date().toISOString() }));
      renameSync(path.join(spawnDir, `.${file}`), path.join(spawnDir, file));
    };
    byHand('3-dave.json', 'dave', 'carol');
    await d.waitFor(/spawn request refused: 3-dave\.json: requested by "carol", but only the lead/, 'a teammate\'s spawn refused');
    byHand('4-human.json', 'human', 'lead');
    await d.waitFor(/spawn request refused: 4-human\.json: the name "human" is reserved/, 'the operator\'s name refused');
    const store = await open(path.join(dir, '.teamux', 'one'));
    expect((await store.config()).members.map((m) => m.name)).toEqual(['lead', 'carol']);
    expect(existsSync(path.join(spawnDir, '1-carol.json'))).toBe(false);
    expect(existsSync(path.join(spawnDir, '2-bad.json.refused'))).toBe(true);
    await d.keys('C-a', 'q', 'C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit');
  }, 60_000);

  it('keys and mouse: focus by number, click to focus, zoom, scrollback, help, restart', async () => {
    const { layout } = layoutFile('two', [
      'name: two', 'layout: even-horizontal', 'sidebar: { hidden: true }',
      'lead: { name: lead, role: shell, command: [bash, --norc, --noprofile] }',
      'teammates:', '  - { name: seq, role: counts, command: [sh, -c, "seq 1 300; echo seq-done"] }', '',
    ].join('\n'));
    const d = await startMux(layout, 120, 30);
    await d.waitFor((s) => s.includes(' 2 seq · counts exited 0') && s.includes('seq-done'), 'the seq pane to finish');
    // Focus by number, then by a mouse click (an SGR mouse press typed into the outer terminal).
    await d.keys('C-a', '2');
    await d.waitFor(/\[two\] → seq/, 'focus on seq');
    await d.type('\x1b[<0;10;5M\x1b[<0;10;5m');
    await d.waitFor(/\[two\] → lead/, 'a click to focus the lead');
    // Zoom the seq pane: the lead's title disappears, seq takes the width.
    await d.keys('C-a', '2', 'C-a', 'z');
    await d.waitFor((s) => /seq · counts exited 0 \[zoom\]/.test(s) && !s.includes(' 1 lead · '), 'the zoomed pane');
    // Scrollback mode: page up shows earlier lines of seq's output.
    await d.keys('C-a', '[');
    await d.waitFor(/\[scroll\]/, 'scrollback mode');
    await d.keys('PageUp', 'PageUp');
    await d.waitFor((s) => /^2[3-9][0-9]\s*$/m.test(s) && !s.includes('seq-done'), 'earlier output');
    await d.keys('q');
    await d.waitFor((s) => s.includes('seq-done') && !s.includes('[scroll]'), 'back at the bottom');
    // Restart the exited pane: it runs again.
    await d.keys('C-a', 'R');
    await d.waitFor(/restarted seq/, 'the restart');
    await d.keys('C-a', 'z');
    // Help lists every binding.
    await d.keys('C-a', '?');
    const help = await d.waitFor(/teamux keys/, 'the help overlay');
    for (const line of ['approve / allow the request', 'broadcast to every inbox', 'shut down every teammate']) expect(help).toContain(line);
    await d.keys('x');
    await d.waitFor((s) => !s.includes('teamux keys'), 'the overlay to close');
    await d.keys('C-a', 'q', 'C-a', 'q');
    await d.waitFor(/TEAMUX-EXIT=0/, 'teamux to exit');
  }, 60_000);

  it('start without a terminal is an error with a hint, and writes nothing', async () => {
    const t = scriptedTeam();
    const r = await cliProcess(['start', t.layout]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/teamux start needs a terminal/);
    expect(r.err).toMatch(/hint:/);
    expect(existsSync(t.teamDir)).toBe(false);
  });
});

describe('programs in a pane look as they do in plain tmux', () => {
  const inputs = path.join(REPO, 'test', 'fixtures', 'vt', 'inputs');

  async function compare(command: string, ready: RegExp): Promise<void> {
    const { layout } = layoutFile('one', `name: one\nsidebar: { hidden: true }\nlead: { name: lead, role: shell, command: [bash, --norc, --noprofile], cwd: ${JSON.stringify(inputs)} }\n`);
    const d = await startMux(layout, 100, 30);
    // The same program in a plain tmux pane of the pane's inner size (100 x 28).
    const plain = await TmuxDriver.start(`cd ${inputs} && bash --norc --noprofile`, 100, 28);
    drivers.push(plain);
    await d.waitFor(/ 1 lead · shell/, 'the pane');
    for (const x of [d, plain]) {
      await x.type(command);
      await x.keys('Enter');
    }
    const mine = await d.waitFor(ready, `${command} in teamux`);
    const theirs = await plain.waitFor(ready, `${command} in tmux`);
    const paneRows = (s: string): string[] => s.split('\n').slice(1, 29).map((l) => l.trimEnd());
    const plainRows = (s: string): string[] => s.split('\n').slice(0, 28).map((l) => l.trimEnd());
    // Screens may still be settling; compare once both are stable.
    await waitFor(async () => JSON.stringify(paneRows(await d.screen())) === JSON.stringify(plainRows(await plain.screen())), `${command}: teamux pane == tmux pane`, 10_000).catch(() => undefined);
    expect(paneRows(await d.screen())).toEqual(plainRows(await plain.screen()));
    expect(mine.length).toBeGreaterThan(0);
    expect(theirs.length).toBeGreaterThan(0);
  }

  it('vim', async () => {
    await compare('vim -u NONE -N -n -i NONE sample.txt', /"sample.txt" \d+L/);
  }, 60_000);

  it('less', async () => {
    await compare('less -S long.txt', /^line 027 of the less fixture/m);
  }, 60_000);

  it('wide characters: emoji, ZWJ sequences, flags, variation selectors, combining marks, CJK', async () => {
    await compare('cat widths.txt', /^END-OF-WIDTHS/m);
  }, 60_000);
});
