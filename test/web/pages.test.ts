// The web view's pages are pure: hostile team data renders as text, the timeline follows the attempts.
import { describe, expect, it } from 'vitest';
import { buildTimeline } from '../../src/protocol/timeline.js';
import type { ProtocolRequest, Task } from '../../src/protocol/types.js';
import type { SidebarData } from '../../src/mux/sidebar-data.js';
import { esc, html } from '../../src/web/html.js';
import { boardBody, eventsBody, timelineBody, trafficBody } from '../../src/web/lists.js';
import { markdownHtml } from '../../src/web/markdown.js';
import { requestBody, teamBody } from '../../src/web/pages.js';
import { revisionOf } from '../../src/web/view.js';

const HOSTILE = '<img src=x onerror=alert(1)></script><script>alert(2)</script>"\'`&\x1b]52;c;QUJD\x07';

function task(id: string, over: Partial<Task> = {}): Task & { ready: boolean } {
  return { version: 2, id, subject: `task ${id}`, description: '', status: 'pending', owner: null, blocks: [], blockedBy: [], revision: 1, createdAt: '2026-12-04T10:00:00.000Z', updatedAt: '2026-12-04T10:00:00.000Z', claimedAt: null, completedAt: null, result: null, holder: null, attempts: [], blockedReason: null, reopenedAt: null, ready: true, ...over };
}

function request(over: Partial<ProtocolRequest> = {}): ProtocolRequest {
  return { version: 2, id: 'req-abcd-1', type: 'plan_approval', run: 'run-1', from: 'alice', to: 'human', status: 'pending', body: '# Plan\n- step one\n```\ncode <b>\n```', createdAt: '2026-12-04T10:01:00.000Z', resolvedAt: null, response: null, ...over } as ProtocolRequest;
}

function snapshot(over: Partial<SidebarData> = {}): SidebarData {
  return {
    team: 'demo',
    roster: [
      { name: 'lead', role: 'lead', kind: 'lead', status: 'working', pid: 1, pidStart: null, joinedAt: null, exitCode: null, planRequired: false, planApprover: null, tools: null, runtime: 'agent', reportedStatus: 'working', heartbeatAt: null },
      { name: 'alice', role: HOSTILE, kind: 'teammate', status: 'working', pid: 2, pidStart: null, joinedAt: null, exitCode: null, planRequired: true, planApprover: 'human', tools: null, runtime: 'agent', reportedStatus: 'working', heartbeatAt: null },
    ] as SidebarData['roster'],
    tasks: [task('1', { subject: HOSTILE }), task('2', { status: 'in_progress', owner: 'alice', blockedBy: ['1'] })],
    traffic: [{ time: '2026-12-04T10:02:00.000Z', type: 'message_sent', from: 'alice', to: 'lead', messageType: 'message', excerpt: HOSTILE }],
    requests: [request({ body: HOSTILE })],
    problems: [],
    ...over,
  };
}

/** No element or attribute came from the data: the markup has no tag the renderer did not write. */
function tagsOf(markup: string): string[] {
  return [...markup.matchAll(/<([a-z][a-z0-9]*)/g)].map((m) => m[1]!);
}

describe('web pages', () => {
  it('web.esc-makes-markup-and-controls-text', () => {
    expect(esc(HOSTILE)).not.toMatch(/[<>"'`\x1b\x07]/);
    expect(esc('a\x1bb')).toBe('a\\eb');
    expect(html`<p>${HOSTILE}</p>`.text.startsWith('<p>&lt;img')).toBe(true);
  });

  it('web.hostile-team-data-renders-as-text-on-every-page', () => {
    const d = { snapshot: snapshot(), now: Date.parse('2026-12-04T10:05:00Z') };
    const pages = [teamBody(d), boardBody(d), trafficBody(d.snapshot.traffic, 1), eventsBody(d.snapshot.traffic, 1), timelineBody(d), requestBody(d, d.snapshot.requests[0]!, { csrf: 'c' })];
    for (const p of pages) {
      expect(p.text).not.toContain('<img');
      expect(p.text).not.toContain('<script');
      expect(p.text).not.toContain('\x1b');
      expect(tagsOf(p.text)).not.toContain('img');
    }
    expect(teamBody(d).text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(requestBody(d, d.snapshot.requests[0]!, { csrf: 'c' }).text).toContain('\\e]52;c;QUJD\\x07');
  });

  it('web.request-page-has-answer-forms-only-while-it-waits-for-the-person', () => {
    const d = { snapshot: snapshot(), now: 0 };
    const pending = request();
    const body = requestBody(d, pending, { csrf: 'CSRF' }).text;
    expect(body).toContain('name="csrf" value="CSRF"');
    expect(body).toContain(`name="rev" value="${revisionOf(pending)}"`);
    expect(body).toContain('>Approve<');
    expect(body).toContain('Reject with feedback');
    expect(requestBody(d, request({ type: 'permission', payload: { tool: 'Bash', input: { command: 'rm -rf /' } } }), { csrf: 'c' }).text).toContain('>Allow<');
    expect(requestBody(d, request({ status: 'approved' }), { csrf: 'c' }).text).not.toContain('<form');
    expect(requestBody(d, request({ to: 'lead' }), { csrf: 'c' }).text).toContain('waits for lead, not for you');
    expect(revisionOf(request({ status: 'approved' }))).not.toBe(revisionOf(pending));
  });

  it('web.markdown-renders-the-blocks-the-reader-shows', () => {
    const m = markdownHtml('# Title\n\n- one `x<y`\n  - two\n```\n<b>fence</b>\n```\ntext').text;
    expect(m).toContain('<h3>Title</h3>');
    expect(m).toContain('<span class="mk">•</span> one <code>x&lt;y</code>');
    expect(m).toContain('class="li d1"');
    expect(m).toContain('<pre class="code">&lt;b&gt;fence&lt;/b&gt;</pre>');
    expect(m).toContain('<p>text</p>');
  });

  it('web.team-page-puts-what-waits-for-the-person-first', () => {
    const d = { snapshot: snapshot({ requests: [request({ id: 'req-lead-1', to: 'lead', body: 'for the lead' }), request({ id: 'req-mine-1', body: 'for you' })] }), now: 0 };
    const t = teamBody(d).text;
    expect(t.indexOf('Waiting for you')).toBeLessThan(t.indexOf('Members'));
    expect(t.indexOf('req-mine-1')).toBeLessThan(t.indexOf('Other open requests'));
    expect(t.indexOf('req-lead-1')).toBeGreaterThan(t.indexOf('Other open requests'));
  });

  it('web.timeline-has-a-bar-per-attempt-waits-idle-gaps-and-stages', () => {
    const t0 = Date.parse('2026-12-04T10:00:00Z');
    const at = (s: number): string => new Date(t0 + s * 1000).toISOString();
    const tasks = [
      task('1', { status: 'completed', attempts: [{ owner: 'bob', startedAt: at(0), endedAt: at(10), outcome: 'completed', note: null }] }),
      task('2', { status: 'in_progress', attempts: [{ owner: 'bob', startedAt: at(20), endedAt: at(25), outcome: 'abandoned', note: null }, { owner: 'alice', startedAt: at(30), endedAt: null, outcome: null, note: null }], pipeline: { stage: 'exec', story: null, key: 'exec-1', round: 0, verdict: null, findings: [] } as never }),
    ];
    const reqs = [request({ from: 'alice', createdAt: at(26), status: 'approved', resolvedAt: at(29) })];
    const tl = buildTimeline(tasks, reqs, ['lead', 'alice', 'bob'], t0 + 40_000);
    expect(tl.rows.map((r) => r.member)).toEqual(['lead', 'alice', 'bob']);
    const bob = tl.rows[2]!;
    expect(bob.bars.map((b) => [b.task, b.outcome])).toEqual([['1', 'completed'], ['2', 'abandoned']]);
    expect(bob.idle).toEqual([{ start: t0 + 10_000, end: t0 + 20_000 }]);
    const alice = tl.rows[1]!;
    expect(alice.bars[0]).toMatchObject({ task: '2', outcome: null, end: t0 + 40_000, stage: 'exec' });
    expect(alice.waits).toEqual([{ start: t0 + 26_000, end: t0 + 29_000, label: 'plan' }]);
    expect(tl.stages).toEqual([{ stage: 'exec', time: t0 + 20_000 }]);
    expect(tl.start).toBe(t0);
    const svg = timelineBody({ snapshot: snapshot({ tasks: tasks as never, requests: reqs }), now: t0 + 40_000 }).text;
    expect(svg.match(/class="bar /g)).toHaveLength(3);
    expect(svg).toContain('class="wait"');
    expect(svg).toContain('class="idle"');
  });
});

describe('web diff page', () => {
  it('web.diff-page-colours-lines-and-escapes-hostile-names-and-content', async () => {
    const { diffBody } = await import('../../src/web/lists.js');
    const body = diffBody({ member: 'bob', branch: 'teamux/demo/bob', base: 'main', commits: 2, added: 3, removed: 1, files: [{ path: 'a b/<x>\x1b[2J.ts', added: 3, removed: 1 }, { path: 'new.bin', added: null, removed: null, untracked: true }], patch: 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+<script>alert(1)</script>\x1b]52;c;AA\x07\n' }).text;
    expect(body).toContain('<span class="del">-old</span>');
    expect(body).toContain('<span class="add">+&lt;script&gt;alert(1)&lt;/script&gt;\\e]52;c;AA\\x07</span>');
    expect(body).toContain('<span class="hunk">@@ -1 +1 @@</span>');
    expect(body).toContain('a b/&lt;x&gt;\\e[2J.ts');
    expect(body).toContain('binary');
    expect(tagsOf(body)).not.toContain('script');
  });
});
