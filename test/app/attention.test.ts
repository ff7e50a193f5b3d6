// Attention and reading: memberActivity (one state for titles, roster and `teamux ls`), the sidebar's
// roster and request order, the bell/title/notify on a new pending request, and the status-line badge.
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TeamSnapshot } from '../../src/app/team-view.js';
import { Attention, requestSummary } from '../../src/app/attention.js';
import { memberActivity } from '../../src/protocol/activity.js';
import type { ProtocolRequest } from '../../src/protocol/types.js';
import type { MemberView } from '../../src/store/team.js';
import { activityStyle } from '../../src/ui/chrome.js';
import { renderSidebar } from '../../src/ui/sidebar.js';
import { C, rowText, style } from '../../src/ui/text.js';
import { startMux } from '../helpers/mux.js';
import { makeTeam, tempDir, waitFor } from '../helpers/team.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const NOW = '2026-01-01T10:20:30.000Z';
function plan(from: string, id = `req-abcd-${from}`, body = 'do the thing'): ProtocolRequest {
  return { version: 1, id, type: 'plan_approval', from, to: 'lead', status: 'pending', body, createdAt: NOW, resolvedAt: null, response: null } as ProtocolRequest;
}
function member(name: string, patch: Partial<MemberView> = {}): MemberView {
  return { name, role: 'r', kind: 'teammate', status: 'working', reportedStatus: 'working', pid: 1, pidStart: null, joinedAt: NOW, exitCode: null, planRequired: false, planApprover: null, tools: null, runtime: 'agent', heartbeatAt: null, ...patch } as MemberView;
}

describe('memberActivity', () => {
  it('activity.one-state-from-process-requests-and-record', () => {
    const base = { name: 'alice', runtime: 'agent' as const, status: 'idle' as const, exitCode: null, pending: [] };
    expect(memberActivity(base)).toEqual({ kind: 'idle', label: 'idle' });
    // A pending plan beats the record's idle: the roster and the title both say so.
    expect(memberActivity({ ...base, pending: [plan('alice')] })).toEqual({ kind: 'waiting', label: 'waiting for approval' });
    expect(memberActivity({ ...base, pending: [plan('bob')] }).kind).toBe('idle');
    expect(memberActivity({ ...base, status: 'working' })).toEqual({ kind: 'working', label: 'working' });
    expect(memberActivity({ ...base, status: 'working', runtime: 'command' })).toEqual({ kind: 'running', label: 'running' });
    expect(memberActivity({ ...base, stopping: true, pending: [plan('alice')] }).label).toBe('stopping');
    expect(memberActivity({ ...base, process: { life: 'exited', exitCode: 0, signal: null } })).toEqual({ kind: 'exited', label: 'exited 0' });
    expect(memberActivity({ ...base, process: { life: 'exited', exitCode: 2, signal: null } })).toEqual({ kind: 'failed', label: 'exited 2' });
    expect(memberActivity({ ...base, process: { life: 'exited', exitCode: null, signal: 'SIGKILL' } })).toEqual({ kind: 'failed', label: 'killed by SIGKILL' });
    expect(memberActivity({ ...base, status: 'exited', exitCode: 0 })).toEqual({ kind: 'exited', label: 'exited 0' });
    expect(memberActivity({ ...base, process: { life: 'starting', exitCode: null, signal: null } }).label).toBe('starting');
  });

  it('activity.permission-requests-and-claude-hooks-refine-the-record', () => {
    const base = { name: 'amy', runtime: 'agent' as const, status: 'idle' as const, exitCode: null, pending: [] };
    const perm = { ...plan('amy'), id: 'req-perm', type: 'permission' as const };
    expect(memberActivity({ ...base, pending: [perm] })).toEqual({ kind: 'waiting', label: 'waiting for permission' });
    // The hooks' state beats the roster's working/idle, but not a pending plan, a stop or an exit.
    expect(memberActivity({ ...base, hooks: 'working' })).toEqual({ kind: 'working', label: 'working' });
    expect(memberActivity({ ...base, status: 'working', hooks: 'waiting for permission' })).toEqual({ kind: 'waiting', label: 'waiting for permission' });
    expect(memberActivity({ ...base, hooks: 'ended' })).toEqual({ kind: 'idle', label: 'idle' });
    expect(memberActivity({ ...base, hooks: 'working', pending: [plan('amy')] }).label).toBe('waiting for approval');
    expect(memberActivity({ ...base, hooks: 'working', stopping: true }).label).toBe('stopping');
  });

  it('activity.exit-0-is-dim-a-failure-red', () => {
    expect(activityStyle('exited')).toBe(style(C.default, C.default, { dim: true }));
    expect(activityStyle('failed')).toBe(style(C.red, C.default, { bold: true }));
  });
});

describe('sidebar roster and request order', () => {
  const snap = (requests: ProtocolRequest[]): TeamSnapshot => ({
    team: 'demo', tasks: [], problems: [], generation: 1, traffic: [], requests, claude: {},
    roster: [member('lead', { kind: 'lead' }), member('alice', { status: 'idle', reportedStatus: 'idle' }), member('sh', { runtime: 'command' }), member('old', { status: 'exited', reportedStatus: 'exited', exitCode: 0 })],
  });

  it('sidebar.one-roster-line-per-member-with-a-coloured-dot', () => {
    const rows = renderSidebar(snap([plan('alice')]), { width: 40, height: 30, sections: ['task_board', 'mailbox', 'requests'], selectedRequest: null, notices: [] });
    const text = rows.map(rowText);
    expect(text.slice(1, 5)).toEqual(['● lead  working', '● alice waiting for approval', '● sh    running', '● old   exited 0']);
    expect(rows[2]![0]!.attr).toBe(activityStyle('waiting'));
    expect(rows[4]![0]!.attr).toBe(activityStyle('exited'));
  });

  it('sidebar.pending-requests-come-first-in-the-warning-colour', () => {
    const rows = renderSidebar(snap([plan('alice')]), { width: 40, height: 30, sections: ['task_board', 'mailbox', 'requests'], selectedRequest: null, notices: [] });
    const text = rows.map(rowText);
    expect(text[5]).toMatch(/^ ⚑ REQUESTS 1 pending/);
    expect(text[6]).toMatch(/^ plan alice→lead: do the thing/);
    expect(rows[6]![0]!.attr).toBe(style(C.yellow, C.default, { bold: true }));
    expect(text.findIndex((l) => l.startsWith(' TASKS'))).toBeGreaterThan(6);
    // With nothing pending the layout's order holds.
    const calm = renderSidebar(snap([]), { width: 40, height: 30, sections: ['task_board', 'mailbox', 'requests'], selectedRequest: null, notices: [] }).map(rowText);
    expect(calm[5]).toMatch(/^ TASKS/);
  });
});

describe('bell, title and notify', () => {
  it('attention.rings-once-per-new-request-and-titles-the-count', () => {
    let out = '';
    const a = new Attention({ bell: true, title: true, notify: null }, 'demo', (d) => (out += d), { warn: () => undefined });
    a.update([plan('alice')]);
    expect(out).toBe('\x07\x1b]2;⚑ 1 awaiting · teamux: demo\x07');
    out = '';
    a.update([plan('alice')]);
    expect(out, 'the same request does not ring again').toBe('');
    a.update([plan('alice'), plan('bob')]);
    expect(out).toBe('\x07\x1b]2;⚑ 2 awaiting · teamux: demo\x07');
    out = '';
    a.update([]);
    expect(out).toBe('\x1b]2;teamux: demo\x07');
    const quiet = new Attention({ bell: false, title: false, notify: null }, 'demo', (d) => (out += d), { warn: () => undefined });
    out = '';
    quiet.update([plan('alice')]);
    expect(out).toBe('');
  });

  it('attention.notify-command-gets-the-summary-as-one-argument-no-shell', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const script = path.join(tmp.dir, 'notify.sh');
    const log = path.join(tmp.dir, 'args');
    writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$#" "$@" > '${log}'\n`);
    chmodSync(script, 0o755);
    const canary = path.join(tmp.dir, 'pwned');
    const body = `plan $(touch ${canary}); \`touch ${canary}\`\x1b]2;evil\x07\nsecond line`;
    const a = new Attention({ bell: false, title: false, notify: [script, '--app', 'teamux'] }, 'demo', () => undefined, { warn: () => undefined });
    cleanups.push(() => a.dispose());
    a.update([plan('alice', 'req-abcd-0001', body)]);
    const args = await waitFor(() => (existsSync(log) ? readFileSync(log, 'utf8') : null), 'the notify command to run');
    const lines = args.trimEnd().split('\n');
    expect(lines[0]).toBe('3');
    expect(lines.slice(1, 3)).toEqual(['--app', 'teamux']);
    expect(lines[3]).toBe(`alice: plan awaiting approval: plan $(touch ${canary}); \`touch ${canary}\` ]2;evil`);
    expect(existsSync(canary), 'nothing ran through a shell').toBe(false);
    expect(requestSummary(plan('bob', 'req-abcd-0002', 'x'.repeat(500))).length).toBe(200);
  });

  it('attention.a-missing-notify-command-is-logged-not-fatal', async () => {
    const warnings: string[] = [];
    const a = new Attention({ bell: true, title: false, notify: ['/nonexistent/notify-send'] }, 'demo', () => undefined, { warn: (m) => warnings.push(m) });
    a.update([plan('alice')]);
    await waitFor(() => warnings.length > 0, 'the failure to be logged');
    expect(warnings[0]).toMatch(/notify command \/nonexistent\/notify-send failed: .*ENOENT/);
  });
});

describe('on the screen', () => {
  it('mux.badge-bell-and-title-for-a-waiting-plan', async () => {
    const t = await makeTeam(['alice']);
    cleanups.push(t.cleanup);
    const h = await startMux(t.store);
    cleanups.push(() => h.stop());
    await h.see('→ lead');
    expect(await h.tty.text()).not.toContain('⚑');
    const before = h.tty.raw.length;
    await t.store.openRequest('plan_approval', 'alice', 'human', 'my plan');
    await h.see('⚑ 1 plan awaiting C-a a');
    await h.see(/2 alice · .*waiting for approval/);
    await h.see(/● alice +waiting for approval/);
    const after = h.tty.raw.slice(before);
    expect(after).toContain('\x07');
    expect(after).toContain('\x1b]2;⚑ 1 awaiting · teamux: test\x07');
    h.prefix('a');
    await waitFor(async () => !(await h.tty.text()).includes('⚑ 1 plan awaiting'), 'the badge to go');
  });
});
