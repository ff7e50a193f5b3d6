/**
 * A Claude Code member's permission request in the sidebar: listed like a plan request, shown in full
 * when selected (tool and every input field, control characters neutralised), and the member's
 * roster line (one per member) carries its tokens, cost and a spent budget from its activity record,
 * within the sidebar's width.
 */
import { describe, expect, it } from 'vitest';
import type { TeamSnapshot } from '../../../src/app/team-view.js';
import type { ProtocolRequest } from '../../../src/protocol/types.js';
import type { MemberView } from '../../../src/store/team.js';
import { renderSidebar } from '../../../src/ui/sidebar.js';
import { rowText, textWidth } from '../../../src/ui/text.js';

const NOW = '2026-01-01T10:20:30.000Z';
const perm: ProtocolRequest = {
  version: 2, id: 'req-abcd-0002', type: 'permission', run: null, expiredReason: null, from: 'amy', to: 'human', status: 'pending', body: 'Bash: rm -rf build && make', createdAt: NOW, resolvedAt: null, response: null,
  payload: { tool: 'Bash', input: { command: 'rm -rf build && make all CFLAGS="-O2 -g" \x1b[31mred', description: 'rebuild from scratch' } },
};
const amy = { name: 'amy', reportedStatus: 'working', runtime: 'agent', exitCode: null } as MemberView;

function snapshot(requests: ProtocolRequest[]): TeamSnapshot {
  return {
    team: 'cc', roster: [amy], tasks: [], requests, problems: [], generation: 1, traffic: [],
    claude: { amy: { state: 'waiting for permission', at: NOW, sessionId: null, transcriptPath: null, costUsd: 0.1234, tokens: { input: 1000, output: 200 }, model: null, budget: null } },
  };
}

describe('sidebar with Claude Code members', () => {
  it('claude.sidebar-shows-a-selected-permission-request-in-full', () => {
    const rows = renderSidebar(snapshot([perm]), { width: 30, height: 30, sections: ['task_board', 'mailbox', 'requests'], selectedRequest: perm.id, notices: [] });
    const text = rows.map(rowText);
    expect(text[1]).toBe('● amy  waiting for… 1.2k $0.12');
    expect(text.some((l) => l.startsWith('▶permission amy→human: Bash'))).toBe(true);
    const detail = text.join('\n');
    expect(detail).toContain('tool: Bash');
    // The long command is wrapped, not cut: every part of it is on screen.
    const joined = text.map((l) => l.trim()).join('');
    expect(joined.replace(/\s/g, '')).toContain('rm-rfbuild&&makeallCFLAGS="-O2-g"?[31mred');
    expect(joined).toContain('description: rebuild from scratch');
    expect(detail).toContain('C-a a allow · C-a r deny');
    expect(detail).not.toContain('\x1b');
    for (const row of rows) expect(textWidth(rowText(row))).toBeLessThanOrEqual(30);
  });

  it('claude.sidebar-lists-an-unselected-permission-on-one-line-and-resolved-ones-by-asker', () => {
    const done: ProtocolRequest = { ...perm, id: 'req-abcd-0003', status: 'rejected', response: { by: 'lead', approve: false, text: 'not now', at: NOW, signed: null } };
    const text = renderSidebar(snapshot([perm, done]), { width: 40, height: 30, sections: ['requests'], selectedRequest: null, notices: [] }).map(rowText);
    expect(text.filter((l) => l.includes('tool: Bash'))).toEqual([]);
    expect(text[1]).toBe('● amy  waiting for permi… 1.2k tok $0.12');
    expect(text).toContain(' permission amy: rejected — not now');
  });

  it('claude.sidebar-roster-shows-tokens-cost-and-a-spent-budget-within-the-width', () => {
    const idle = (budget: string | null): TeamSnapshot => ({
      ...snapshot([]),
      claude: { amy: { state: 'idle', at: NOW, sessionId: null, transcriptPath: null, costUsd: 1.5, tokens: { input: 27_000, output: 1_600 }, model: null, budget } },
    });
    const line = (s: TeamSnapshot, width: number): string => rowText(renderSidebar(s, { width, height: 20, sections: [], selectedRequest: null, notices: [] })[1]!);
    // Wide: everything, as the pane title has it.
    expect(line(idle(null), 48)).toBe('● amy  idle · 29k tok · $1.50');
    expect(line(idle("amy's budget is spent: 29k of 10k tokens in 1h"), 48)).toBe('● amy  idle (budget spent) · 29k tok · $1.50');
    // Narrower: the separators go, then the state is shortened, then "tok", then the tokens; the cost stays.
    expect(line(idle("amy's budget is spent"), 40)).toBe('● amy  idle (budget spent) 29k tok $1.50');
    expect(line(idle("amy's budget is spent"), 34)).toBe('● amy  idle (budget… 29k tok $1.50');
    expect(line(idle("amy's budget is spent"), 26)).toBe('● amy  idle (bu… 29k $1.50');
    expect(line(idle("amy's budget is spent"), 20)).toBe('● amy  idle (… $1.50');
    for (let width = 8; width <= 60; width++) {
      for (const b of [null, 'spent']) expect(textWidth(line(idle(b), width))).toBeLessThanOrEqual(width);
    }
  });
});
