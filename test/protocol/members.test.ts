// memberState: the one function behind the sidebar roster, the pane titles, `teamux ls` and
// `teamux team show`; and the sidebar roster line rendered from it.
import { describe, expect, it } from 'vitest';
import { memberState } from '../../src/protocol/members.js';
import type { ProtocolRequest } from '../../src/protocol/types.js';
import { renderSidebar } from '../../src/ui/sidebar.js';
import type { MemberView } from '../../src/store/team.js';

const NOW = '2026-01-01T10:20:30.000Z';
function request(from: string, type: ProtocolRequest['type'], status: ProtocolRequest['status']): ProtocolRequest {
  return { version: 2, id: `req-${from}-${type}`, type, run: 'run-1', from, to: 'lead', status, body: 'b', createdAt: NOW, resolvedAt: null, response: null, expiredReason: null };
}
function member(name: string, reportedStatus: MemberView['reportedStatus']): MemberView {
  return { name, role: 'r', kind: 'teammate', status: 'idle', pid: 1, pidStart: null, joinedAt: null, exitCode: null, planRequired: true, planApprover: 'lead', tools: null, runtime: 'command', reportedStatus, heartbeatAt: null };
}

describe('member state', () => {
  it('state.a-pending-plan-means-waiting-for-approval-whatever-the-recorded-status', () => {
    const reqs = [request('alice', 'plan_approval', 'pending'), request('bob', 'plan_approval', 'approved'), request('carl', 'shutdown', 'pending')];
    expect(memberState('alice', 'idle', reqs)).toBe('waiting for approval');
    expect(memberState('alice', 'working', reqs)).toBe('waiting for approval');
    expect(memberState('bob', 'idle', reqs)).toBe('idle');
    expect(memberState('carl', 'working', reqs)).toBe('working');
    // Gone or being stopped outranks a plan that will never be answered.
    expect(memberState('alice', 'exited', reqs)).toBe('exited');
    expect(memberState('alice', 'stopping', reqs)).toBe('stopping');
  });

  it('state.the-sidebar-roster-says-what-the-pane-title-says', () => {
    const rows = renderSidebar(
      { team: 'demo', roster: [member('alice', 'idle'), member('bob', 'working')], tasks: [], traffic: [], requests: [request('alice', 'plan_approval', 'pending')], problems: [] },
      { width: 80, height: 10, sections: [], selectedRequest: null, notices: [] },
    );
    // One roster line per member (a coloured dot, the name, the state).
    expect(rows.slice(1, 3).map((r) => r.map((c) => c.text).join('').trim())).toEqual(['● alice waiting for approval', '● bob   running']);
  });
});
