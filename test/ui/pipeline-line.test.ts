// The sidebar's pipeline line (stage, wave, fix round of its bound, verifier) and verdict badges on
// task rows, rendered as plain text.
import { describe, expect, it } from 'vitest';
import type { PipelineSummary } from '../../src/protocol/pipeline.js';
import type { Task } from '../../src/protocol/types.js';
import { pipelineLineText } from '../../src/ui/pipeline-line.js';
import { renderSidebar } from '../../src/ui/sidebar.js';
import type { SidebarData, TaskRow } from '../../src/mux/sidebar-data.js';

const NOW = '2026-01-01T00:00:00.000Z';
const summary = (p: Partial<PipelineSummary> = {}): PipelineSummary => ({ status: 'running', stage: 'fix', wave: 0, waves: 2, fixRound: 1, maxFixRounds: 3, verifier: 'carol', ...p });
function row(id: string, patch: Partial<Task>): TaskRow {
  return { version: 2, id, subject: `task ${id}`, description: '', status: 'completed', owner: 'carol', blocks: [], blockedBy: [], revision: 2, createdAt: NOW, updatedAt: NOW, claimedAt: NOW, completedAt: NOW, result: null, holder: null, attempts: [], blockedReason: null, reopenedAt: null, ready: false, ...patch } as TaskRow;
}
function text(data: SidebarData): string[] {
  return renderSidebar(data, { width: 60, height: 20, sections: ['task_board'], selectedRequest: null, notices: [] }).map((r) => r.map((c) => c.text).join(''));
}

describe('pipeline line', () => {
  it('pipeline-line.shows-stage-wave-fix-round-and-verifier', () => {
    expect(pipelineLineText(summary())).toBe('PIPELINE fix · wave 2/2 · fix 1/3 · verifier carol');
    expect(pipelineLineText(summary({ stage: 'exec', wave: 1, fixRound: 0, verifier: null }))).toBe('PIPELINE exec · wave 1/2 · fix 0/3 · verifier -');
    expect(pipelineLineText(summary({ status: 'BLOCKED_AFTER_VERIFY', fixRound: 3 }))).toBe('PIPELINE BLOCKED_AFTER_VERIFY · wave 2/2 · fix 3/3 · verifier carol');
    expect(pipelineLineText(summary({ status: 'stopped', waves: 0 }))).toBe('PIPELINE STOPPED · fix 1/3 · verifier carol');
  });

  it('sidebar.draws-the-pipeline-line-under-the-title-and-verdict-badges-on-tasks', () => {
    const tasks = [
      row('7', { pipeline: { stage: 'verify', story: null, key: 'verify-r0', round: 0, verdict: 'REVISE', findings: [], output: null } }),
      row('9', { pipeline: { stage: 'verify', story: null, key: 'verify-r1', round: 1, verdict: 'APPROVE', findings: [], output: null } }),
      row('3', {}),
    ];
    const lines = text({ team: 'pipe', roster: [], tasks, traffic: [], requests: [], problems: [], pipeline: summary() });
    expect(lines[1]).toBe('PIPELINE fix · wave 2/2 · fix 1/3 · verifier carol');
    expect(lines.find((l) => l.includes('task 7'))).toContain('[REVISE] @carol');
    expect(lines.find((l) => l.includes('task 9'))).toContain('[APPROVE] @carol');
    expect(lines.find((l) => l.includes('task 3'))).not.toContain('[');
    // A story task blocked by its failed attempts says so, rather than waiting for no task.
    const blocked = row('5', { status: 'blocked', owner: null, blockedReason: '3 attempts failed', pipeline: { stage: 'exec', story: 's1', key: 'exec-s1', round: 0, verdict: null, findings: [], output: null } });
    expect(text({ team: 'pipe', roster: [], tasks: [blocked], traffic: [], requests: [], problems: [], pipeline: summary() }).find((l) => l.includes('task 5'))).toMatch(/^◌  5 task 5 +✗blocked$/);
    // Without a pipeline, no line.
    expect(text({ team: 'pipe', roster: [], tasks, traffic: [], requests: [], problems: [] })[1]).toMatch(/^ TASKS/);
  });
});
