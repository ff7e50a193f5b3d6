// The CLI verbs: exit codes (0 ok, 1 bad input with a hint, 3 refused with a reason), --json, and
// init/validate on layout files.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { issueCertificate, leadSigner, newKeyPair } from '../../src/protocol/trust.js';
import { cli, cliProcess, makeTeam, REPO, tempDir } from '../helpers/team.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

async function team() {
  const t = await makeTeam(['amy', 'bob']);
  cleanup = t.cleanup;
  return { dir: t.dir, env: { TEAMUX_TEAM_DIR: t.dir } };
}

describe('cli', () => {
  it('cli.task-flow-with-json-and-refusal-reasons', async () => {
    const { env } = await team();
    expect((await cli(['task', 'add', '--subject', 'one'], env)).out).toBe('created task 1: one\n');
    expect((await cli(['task', 'add', '--subject', 'two', '--blocked-by', '1', '--json'], env)).out).toMatch(/"ok":true.*"id":"2"/);
    const blocked = await cli(['task', 'claim', '2', '--as', 'amy', '--json'], env);
    expect(blocked.code).toBe(3);
    expect(JSON.parse(blocked.out)).toMatchObject({ ok: false, reason: 'blocked' });
    expect((await cli(['task', 'claim', '--as', 'amy'], env)).out).toMatch(/amy claimed task 1/);
    const lost = await cli(['task', 'claim', '1', '--as', 'bob', '--json'], env);
    expect(JSON.parse(lost.out)).toMatchObject({ reason: 'already_claimed' });
    const stale = await cli(['task', 'update', '1', '--as', 'amy', '--revision', '1', '--description', 'x', '--json'], env);
    expect(stale.code).toBe(3);
    expect(JSON.parse(stale.out)).toMatchObject({ reason: 'conflict' });
    expect((await cli(['task', 'complete', '1', '--as', 'amy', '--result', 'ok'], env)).out).toMatch(/now ready: 2/);
    expect(JSON.parse((await cli(['task', 'claim', '1', '--as', 'bob', '--json'], env)).out)).toMatchObject({ reason: 'already_completed' });
    expect(JSON.parse((await cli(['task', 'claim', '9', '--as', 'bob', '--json'], env)).out)).toMatchObject({ reason: 'not_found' });
    const list = JSON.parse((await cli(['task', 'list', '--json'], env)).out);
    expect(list.tasks.map((t: { id: string; ready: boolean }) => [t.id, t.ready])).toEqual([['1', false], ['2', true]]);
  });

  it('cli.bad-input-exits-1-with-a-hint-and-no-stack', async () => {
    const { env } = await team();
    for (const argv of [
      ['task', 'claim', 'abc', '--as', 'amy'],
      ['task', 'add'],
      ['task', 'frob'],
      ['task', 'list', '--bogus'],
      ['msg', 'send', '--from', 'amy', '--to', 'zed', 'hi'],
      ['inbox', 'read', '--as', 'amy', '--wait', 'soon'],
      ['nosuchverb'],
    ]) {
      const r = await cli(argv, env);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.err, argv.join(' ')).toMatch(/^teamux: /);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
    expect((await cli(['msg', 'send', '--from', 'amy', '--to', 'zed', 'hi'], env)).err).toMatch(/"zed" is not a member/);
    const noTeam = await cli(['task', 'list'], {}, tempDir().dir);
    expect(noTeam.err).toMatch(/no team folder given\n {2}hint: pass --team-dir/);
  });

  it('cli.no-team-folder-hint-names-the-teams-started-below-this-folder', async () => {
    // A checkout where the demo ran: examples/demo/.teamux/demo, and an archived run beside it.
    const checkout = tempDir().dir;
    for (const d of ['examples/demo/.teamux/demo', 'examples/demo/.teamux/archive/demo-1', 'examples/scripted/.teamux/scripted']) {
      mkdirSync(path.join(checkout, d), { recursive: true });
      writeFileSync(path.join(checkout, d, 'team.json'), '{}');
    }
    const r = await cli(['report'], {}, checkout);
    expect(r.code).toBe(1);
    expect(r.err).toBe('teamux: no team folder given\n  hint: pass --team-dir DIR or set TEAMUX_TEAM_DIR (teamux init prints the folder); teams below this folder: examples/demo/.teamux/demo, examples/scripted/.teamux/scripted\n');
  });

  it('cli.msg-to-an-unknown-member-exits-1-as-the-readme-says-with-a-hint-naming-the-members', async () => {
    const { dir, env } = await team();
    // The README's exit-code line, read rather than assumed: an unknown member is bad input.
    const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
    const code = Number(/\*\*(\d)\*\* bad input[^*]*unknown member/.exec(readme)?.[1]);
    expect(code).toBe(1);
    const to = await cliProcess(['msg', 'send', '--team-dir', dir, '--from', 'amy', '--to', 'bbo', 'hi']);
    expect(to.code).toBe(code);
    expect(to.err).toBe('teamux: recipient "bbo" is not a member of this team\n  hint: did you mean "bob"? the members are lead, amy, bob (teamux team show)\n');
    const from = await cliProcess(['msg', 'send', '--team-dir', dir, '--from', 'zed', '--to', 'amy', 'hi', '--json']);
    expect(from.code).toBe(code);
    expect(JSON.parse(from.out)).toEqual({ ok: false, reason: 'unknown_member', message: '"zed" is not a member of this team', hint: 'the members are lead, amy, bob (teamux team show)' });
    const all = await cli(['msg', 'broadcast', '--from', 'leed', 'hi'], env);
    expect(all.code).toBe(code);
    expect(all.err).toMatch(/hint: did you mean "lead"\?/);
    // Nothing was delivered or logged as sent.
    expect((await cli(['inbox', 'read', '--as', 'amy', '--peek'], env)).out).toBe('');
  });

  it('cli.messages-requests-and-plans', async () => {
    const { env } = await team();
    expect((await cli(['msg', 'broadcast', '--from', 'lead', 'hello'], env)).out).toMatch(/broadcast to 2 members: amy, bob/);
    expect((await cli(['inbox', 'read', '--as', 'amy'], env)).out).toMatch(/lead → amy broadcast: hello/);
    expect((await cli(['inbox', 'read', '--as', 'amy'], env)).out).toBe('');
    // Shutdown requests are answered from the command line; a duplicate answer is refused.
    const shut = JSON.parse((await cli(['request', 'shutdown', '--from', 'lead', '--to', 'bob', '--json'], env)).out);
    expect((await cli(['request', 'approve', shut.id], env)).out).toMatch(/shutdown request req-\S+ from lead: approved/);
    const dup = await cli(['request', 'approve', shut.id, '--json'], env);
    expect(dup.code).toBe(3);
    expect(JSON.parse(dup.out)).toMatchObject({ reason: 'not_pending' });
    expect((await cli(['inbox', 'read', '--as', 'bob', '--wait', '0.2'], env)).code).toBe(0);
    const waited = await cli(['inbox', 'read', '--as', 'bob', '--wait', '0.2'], env);
    expect(waited.code).toBe(3);
    expect(waited.err).toMatch(/no message for bob within 0.2s/);
  });

  it('cli.plans-go-to-the-approver-and-only-signed-answers-count', async () => {
    const t = await makeTeam(['amy', 'bob'], { planRequired: true });
    cleanup = t.cleanup;
    const env = { TEAMUX_TEAM_DIR: t.dir };
    const { run } = await t.store.startRun();
    const self = await cli(['plan', 'submit', '--as', 'amy', '--to', 'amy', 'my plan'], env);
    expect(self.code).toBe(1);
    expect(self.err).toMatch(/--to amy: amy's plans go to the configured approver, lead\n {2}hint: leave out --to/);
    const sub = JSON.parse((await cli(['plan', 'submit', '--as', 'amy', '--to', 'lead', 'my plan', '--json'], env)).out);
    expect(sub).toMatchObject({ ok: true, from: 'amy', to: 'lead', status: 'pending', run });
    const rej = await cli(['request', 'reject', sub.id], env);
    expect(rej.code).toBe(1);
    expect(rej.err).toMatch(/needs --feedback/);
    for (const verb of ['approve', 'reject']) {
      const r = await cli(['request', verb, sub.id, '--feedback', 'more tests', '--json'], env);
      expect(r.code).toBe(3);
      expect(JSON.parse(r.out)).toMatchObject({ ok: false, reason: 'unsigned', message: expect.stringContaining('approve_plan / reject_plan') });
    }
    // Inside a member's pane the CLI refuses to act as anyone else.
    const asBob = await cli(['plan', 'submit', '--as', 'bob', 'not mine'], { ...env, TEAMUX_MEMBER: 'amy' });
    expect(asBob.code).toBe(1);
    expect(asBob.err).toMatch(/--as bob: this process belongs to member amy/);
    expect((await cli(['msg', 'send', '--from', 'lead', '--to', 'bob', 'hi'], { ...env, TEAMUX_MEMBER: 'amy' })).code).toBe(1);
    // Nobody acts as the operator from the command line.
    const asOperator = await cli(['msg', 'send', '--from', 'human', '--to', 'lead', 'approve amy'], env);
    expect(asOperator.code).toBe(1);
    expect(asOperator.err).toMatch(/the command line cannot act as it/);

    // The lead's signed rejection (as reject_plan makes it), with a certificate from the screen's root.
    const root = newKeyPair();
    const lead = newKeyPair();
    const signer = leadSigner(lead.privateKey, issueCertificate(root.privateKey, { team: 'test', run, member: 'lead', publicKey: lead.publicKey }));
    expect((await t.store.answerRequest(sub.id, 'lead', false, 'more tests', undefined, signer)).ok).toBe(true);
    expect((await cli(['inbox', 'read', '--as', 'amy'], env)).out).toMatch(/plan_approval_response \[req-[^\]]+\] \(rejected\): more tests/);
    // Without the screen's key the status is what is recorded, marked unverified; with it, checked.
    expect((await cli(['plan', 'status', '--as', 'amy'], env)).out).toBe('amy: plan rejected (unverified: no TEAMUX_TRUST_KEY: signatures not checked) — more tests\n');
    const keyed = { ...env, TEAMUX_TRUST_KEY: root.publicKey, TEAMUX_RUN: run };
    expect((await cli(['plan', 'status', '--as', 'amy'], keyed)).out).toBe('amy: plan rejected — more tests\n');
    expect(JSON.parse((await cli(['plan', 'status', '--as', 'amy', '--json'], keyed)).out)).toMatchObject({ status: 'rejected', verified: true, request: { id: sub.id } });
    // Another screen's key does not vouch for it.
    const other = { ...keyed, TEAMUX_TRUST_KEY: newKeyPair().publicKey };
    expect((await cli(['plan', 'status', '--as', 'amy', '--json'], other)).out).toMatch(/"status":"unverified","verified":false/);
  });

  it('cli.init-validate-and-real-process', async () => {
    const tmp = tempDir();
    cleanup = tmp.cleanup;
    const layout = path.join(tmp.dir, 'team.yaml');
    writeFileSync(layout, 'name: tiny\nlead: { name: lead, role: r, command: bash }\nteammates:\n  - { name: amy, role: r, command: [sh, -c, "true"] }\ntasks:\n  - { id: a, subject: first }\n  - { id: b, subject: second, blockedBy: [a] }\n');
    const ok = await cliProcess(['validate', layout]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/ok — team "tiny": lead \+ 1 teammate, 2 seed tasks/);
    const init = await cliProcess(['init', layout]);
    expect(init.code, init.err).toBe(0);
    const dir = init.out.trim();
    expect(dir).toBe(path.join(tmp.dir, '.teamux', 'tiny'));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const tasks = await cliProcess(['task', 'list', '--json', '--team-dir', dir]);
    expect(JSON.parse(tasks.out).tasks.map((t: { subject: string; blockedBy: string[] }) => [t.subject, t.blockedBy])).toEqual([['first', []], ['second', ['1']]]);
    // init again refreshes without re-seeding.
    await cliProcess(['init', layout]);
    expect(JSON.parse((await cliProcess(['task', 'list', '--json', '--team-dir', dir])).out).tasks).toHaveLength(2);
    // A bad layout: file:line:col, exit 1, nothing written.
    const bad = path.join(tmp.dir, 'bad.yaml');
    writeFileSync(bad, 'name: other\nlead: { name: lead, role: r, command: bash, colour: red }\n');
    const v = await cliProcess(['init', bad]);
    expect(v.code).toBe(1);
    expect(v.err).toMatch(/bad\.yaml:2:\d+ lead\.colour/);
    expect(existsSync(path.join(tmp.dir, '.teamux', 'other'))).toBe(false);
  });
});
