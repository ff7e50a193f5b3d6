// The status-line prompt, and the sidebar rendered from a team snapshot (with a 1000-task board).
import { describe, expect, it } from 'vitest';
import type { TeamSnapshot } from '../../src/app/team-view.js';
import { openPrompt, promptKey } from '../../src/mux/prompt.js';
import type { ProtocolRequest, Task } from '../../src/protocol/types.js';
import { renderSidebar } from '../../src/ui/sidebar.js';
import { rowText, textWidth } from '../../src/ui/text.js';

describe('prompt', () => {
  it('prompt.edits-submits-and-cancels', () => {
    let s = openPrompt('broadcast:');
    for (const ch of 'helo') {
      const r = promptKey(s, ch, ch);
      if (r.kind !== 'edit') throw new Error('expected edit');
      s = r.state;
    }
    let r = promptKey(s, '\x1b[D', 'left');
    if (r.kind === 'edit') s = r.state;
    r = promptKey(s, 'l', 'l');
    if (r.kind === 'edit') s = r.state;
    expect(s.text).toBe('hello');
    r = promptKey(s, 'pasted\ntext', null);
    if (r.kind === 'edit') s = r.state;
    expect(s.text).toBe('hellpasted texto');
    expect(promptKey(s, '\r', 'enter')).toEqual({ kind: 'submit', text: 'hellpasted texto' });
    expect(promptKey(s, '\x1b', 'escape')).toEqual({ kind: 'cancel' });
  });
});

const NOW = '2026-01-01T10:20:30.000Z';
function task(id: number, patch: Partial<Task & { ready: boolean }> = {}): Task & { ready: boolean } {
  return { version: 1, id: String(id), subject: `task number ${id}`, description: '', status: 'pending', owner: null, blocks: [], blockedBy: [], revision: 1, createdAt: NOW, updatedAt: NOW, claimedAt: null, completedAt: null, result: null, holder: null, ready: true, ...patch };
}
const plan: ProtocolRequest = { version: 2, id: 'req-abcd-0001', type: 'plan_approval', run: 'run-1', from: 'alice', to: 'lead', status: 'pending', body: 'do the thing', createdAt: NOW, resolvedAt: null, response: null, expiredReason: null };

function snapshot(tasks: Array<Task & { ready: boolean }>): TeamSnapshot {
  return {
    team: 'demo', roster: [], tasks, requests: [plan], problems: [], claude: {}, generation: 1,
    traffic: [{ time: NOW, type: 'message_sent', from: 'bob', to: 'lead', messageType: 'result', excerpt: '任务 done' }],
  };
}

describe('sidebar', () => {
  it('sidebar.sections-and-selection', () => {
    const rows = renderSidebar(snapshot([task(1, { status: 'in_progress', owner: 'bob', ready: false }), task(2, { blockedBy: ['1'], ready: false }), task(3)]), { width: 40, height: 20, sections: ['task_board', 'mailbox', 'requests'], selectedRequest: plan.id, notices: [] });
    const text = rows.map(rowText);
    expect(text.find((l) => l.startsWith(' TASKS'))).toMatch(/^ TASKS 3  ●1 ○1 ◌1 ✓0/);
    expect(text[1], 'the pending request comes first').toMatch(/⚑ REQUESTS 1 pending/);
    expect(text).toContain('●  1 task number 1 @bob');
    expect(text).toContain('○  3 task number 3');
    expect(text).toContain('◌  2 task number 2 ⟵1');
    expect(text.some((l) => l.startsWith('10:20 bob→lead result: 任务 done'))).toBe(true);
    expect(text.some((l) => l.startsWith('▶plan alice→lead: do the thing'))).toBe(true);
    for (const row of rows) expect(textWidth(rowText(row))).toBeLessThanOrEqual(40);
  });

  it('sidebar.1000-tasks-fit-and-stay-fast', () => {
    const tasks = Array.from({ length: 1000 }, (_, i) => task(i + 1, i % 3 === 0 ? { status: 'completed', ready: false } : {}));
    const snap = snapshot(tasks);
    const started = performance.now();
    let rows = renderSidebar(snap, { width: 44, height: 50, sections: ['task_board', 'mailbox', 'requests'], selectedRequest: null, notices: [] });
    for (let i = 0; i < 20; i++) rows = renderSidebar(snap, { width: 44, height: 50, sections: ['task_board', 'mailbox', 'requests'], selectedRequest: null, notices: [] });
    const perRender = (performance.now() - started) / 21;
    expect(rows).toHaveLength(50);
    const text = rows.map(rowText);
    expect(text.find((l) => l.startsWith(' TASKS'))).toMatch(/TASKS 1000 {2}●0 ○666 ◌0 ✓334/);
    expect(text.some((l) => /… \d+ more/.test(l))).toBe(true);
    // Not a benchmark: a generous bound that only a quadratic blow-up would break.
    expect(perRender).toBeLessThan(50);
  });
});
