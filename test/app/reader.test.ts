// Reading a request in full before answering it: Markdown rendered (headings, lists, code blocks),
// control characters shown escaped, a scrollable overlay on C-a v, and `teamux request show`.
import { afterEach, describe, expect, it } from 'vitest';
import { escapeControls, renderMarkdown } from '../../src/ui/markdown.js';
import { rowText, textWidth } from '../../src/ui/text.js';
import { startMux } from '../helpers/mux.js';
import { cli, makeTeam, waitFor } from '../helpers/team.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const PLAN = [
  '# Plan for the parser',
  '',
  'First I read the code, then:',
  '1. write the tokenizer with a long explanation that must wrap onto the next line nicely',
  '2. add tests',
  '   - unit',
  '```ts',
  'const x = `tick`;\tdone',
  '```',
  'Danger: \x1b[2J\x1b]2;owned\x07 and \x9b31m',
].join('\n');

describe('markdown', () => {
  it('markdown.headings-lists-code-and-escaped-controls', () => {
    const rows = renderMarkdown(PLAN, 40);
    const text = rows.map(rowText);
    for (const r of rows) expect(textWidth(rowText(r))).toBeLessThanOrEqual(40);
    expect(text[0]).toBe('Plan for the parser');
    expect(text).toContain('1. write the tokenizer with a long');
    expect(text[text.indexOf('1. write the tokenizer with a long') + 1]).toMatch(/^ {3}explanation/);
    expect(text).toContain('  • unit');
    expect(text.some((l) => l.startsWith(' const x = `tick`;    done'))).toBe(true);
    expect(rowText(renderMarkdown('Danger: \x1b[2J\x1b]2;owned\x07 and \x9b31m', 80)[0]!)).toBe('Danger: \\e[2J\\e]2;owned\\x07 and \\u009b31m');
    expect(rows.flat().every((s) => !/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(s.text))).toBe(true);
    expect(escapeControls('a\x7fb\x01\u202e')).toBe('a\\u007fb\\x01\\u202e');
  });
});

describe('the reader overlay', () => {
  it('keys.read-request-opens-scrolls-and-closes', async () => {
    const t = await makeTeam(['alice']);
    cleanups.push(t.cleanup);
    const long = `${PLAN}\n${Array.from({ length: 60 }, (_, i) => `- step ${i + 1}`).join('\n')}\n\nTHE END`;
    await t.store.openRequest('plan_approval', 'alice', 'human', long);
    // No sidebar, so the request's text on screen can only be the reader's.
    const sidebar = { position: 'right' as const, width: { cells: 30 }, minWidth: 20, maxWidth: 40, hideBelow: 0, hidden: true, sections: [] };
    const h = await startMux(t.store, { cols: 100, rows: 30, sidebar });
    cleanups.push(() => h.stop());
    await waitFor(() => h.mux.snapshot.requests.length === 1, 'the request in the snapshot');
    h.prefix('v');
    let screen = await h.see('q closes');
    expect(screen).toContain('Plan for the parser');
    expect(screen).toMatch(/plan from alice to human · pending/);
    expect(screen).toContain('q closes · C-a a approves, C-a r rejects');
    expect(screen).toContain('\\e[2J\\e]2;owned\\x07');
    expect(screen).not.toContain('THE END');
    h.type('G');
    screen = await h.see('THE END');
    h.type('g');
    await h.see('Plan for the parser');
    // Keys do not reach the pane while reading.
    h.type(' ');
    await waitFor(async () => !(await h.tty.text()).includes('Plan for the parser'), 'a page down');
    expect(h.host.proc('lead').input).toBe('');
    // The prefix still works: approve from the reader.
    h.prefix('a');
    await h.see("approved alice's plan");
    h.type('g');
    await h.see(/plan from alice to human · approved/);
    h.type('q');
    await waitFor(async () => !(await h.tty.text()).includes('q closes'), 'the reader to close');
  });
});

describe('teamux request show', () => {
  it('cli.request-show-human-and-json', async () => {
    const t = await makeTeam(['alice']);
    cleanups.push(t.cleanup);
    const r = await t.store.openRequest('plan_approval', 'alice', 'lead', 'step one\n\x1b[31mred\x1b[0m');
    if (!r.ok) throw new Error(r.message);
    const human = await cli(['request', 'show', r.value.id, '--team-dir', t.dir]);
    expect(human.code).toBe(0);
    expect(human.out).toMatch(new RegExp(`^${r.value.id}: plan_approval request from alice to lead, pending\nopened \\S+\n\nstep one\n\\\\e\\[31mred\\\\e\\[0m\n$`));
    const json = await cli(['request', 'show', r.value.id, '--json', '--team-dir', t.dir]);
    expect(JSON.parse(json.out)).toMatchObject({ ok: true, id: r.value.id, from: 'alice', body: 'step one\n\x1b[31mred\x1b[0m' });
    const missing = await cli(['request', 'show', 'req-nope-0000', '--team-dir', t.dir]);
    expect(missing.code).toBe(3);
    expect(missing.err).toMatch(/refused \(not_found\)/);
  });
});
