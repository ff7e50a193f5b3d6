// The roster's work counts (`+120 −8 · 5 files`) and the yellow overlap lines naming both members,
// rendered as text and attributes, with a hostile file name escaped.
import { describe, expect, it } from 'vitest';
import type { MemberView } from '../../src/store/team.js';
import type { SidebarData } from '../../src/mux/sidebar-data.js';
import { renderSidebar } from '../../src/ui/sidebar.js';
import { C, style } from '../../src/ui/text.js';

const member = (name: string): MemberView => ({ name, role: 'r', kind: 'teammate', status: 'working', reportedStatus: 'working', pid: 1, pidStart: null, joinedAt: null, exitCode: null, planRequired: false, planApprover: null, tools: null, runtime: 'command', heartbeatAt: null }) as MemberView;

function rows(data: SidebarData, width = 60) {
  return renderSidebar(data, { width, height: 20, sections: [], selectedRequest: null, notices: [] });
}
const text = (r: ReturnType<typeof rows>): string[] => r.map((row) => row.map((c) => c.text).join(''));

describe('sidebar work', () => {
  it('sidebar.work-counts-per-member-and-a-yellow-overlap-naming-both', () => {
    const data: SidebarData = {
      team: 'crew', roster: [member('amy'), member('bob'), member('cy')], tasks: [], traffic: [], requests: [], problems: [],
      work: { members: { amy: { added: 120, removed: 8, files: 5 }, bob: { added: 1, removed: 0, files: 1 }, cy: { added: 0, removed: 0, files: 0 } }, overlaps: [{ path: 'src/\x1b[2Jx.ts', members: ['amy', 'bob'] }] },
    };
    const r = rows(data);
    const t = text(r);
    expect(t.find((l) => l.includes('amy'))).toMatch(/ \+120 −8 · 5 files$/);
    expect(t.find((l) => l.includes('bob') && !l.includes('overlap'))).toMatch(/ \+1 −0 · 1 file$/);
    expect(t.find((l) => l.includes('cy'))).not.toContain('·');
    const i = t.findIndex((l) => l.includes('overlap'));
    expect(t[i]).toBe('  ⚠ overlap src/\\e[2Jx.ts: amy + bob');
    expect(r[i]![0]!.attr).toBe(style(C.yellow, C.default, { bold: true }));
    // Narrow: the counts give way before the name does.
    expect(text(rows(data, 14)).find((l) => l.includes('amy'))).not.toContain('+120');
  });

  it('sidebar.no-worktrees-no-counts', () => {
    const t = text(rows({ team: 'crew', roster: [member('amy')], tasks: [], traffic: [], requests: [], problems: [] }));
    expect(t.join('\n')).not.toMatch(/overlap|files?$/);
  });
});
