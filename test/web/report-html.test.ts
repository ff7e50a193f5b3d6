// `teamux report --html` over a real team folder: one self-contained file with the timeline of the run
// (a bar per attempt, the plan's wait), the report's tables, team data escaped, no script.
import { afterEach, describe, expect, it } from 'vitest';
import { cli, makeTeam } from '../helpers/team.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('report --html', () => {
  it('report.html-is-one-file-with-the-timeline-and-escaped-data', async () => {
    const team = await makeTeam(['alice', 'bob']);
    cleanups.push(team.cleanup);
    const s = team.store;
    expect((await s.tasks.create({ subject: '<script>alert(1)</script> design' })).ok).toBe(true);
    expect((await s.tasks.create({ subject: 'build', blockedBy: ['1'] })).ok).toBe(true);
    expect((await s.tasks.claim('alice', '1')).ok).toBe(true);
    expect((await s.openRequest('plan_approval', 'alice', 'lead', 'the plan')).ok).toBe(true);
    expect((await s.tasks.complete('1', 'alice', 'done')).ok).toBe(true);
    expect((await s.tasks.claim('bob', '2')).ok).toBe(true);
    const r = await cli(['report', '--html', '--team-dir', team.dir]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out.startsWith('<!doctype html>')).toBe(true);
    expect(r.out).not.toMatch(/<script|src=|href="http/);
    expect(r.out).toContain('&lt;script&gt;alert(1)&lt;/script&gt; design');
    expect(r.out.match(/class="bar /g)).toHaveLength(2);
    expect(r.out).toContain('class="bar ok"');
    expect(r.out).toContain('class="bar run"');
    expect(r.out).toContain('class="wait"');
    expect(r.out).toContain('<style>');
    const both = await cli(['report', '--html', '--json', '--team-dir', team.dir]);
    expect(both.code).not.toBe(0);
    expect(both.err).toContain('choose one');
  });
});
