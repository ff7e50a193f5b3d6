// The web view's server over a real team folder and the real team watch: the token, the cookie, CSRF,
// revisions (no replay), answers through the store, the live stream.
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { TeamView } from '../../src/app/team-view.js';
import { TrustAuthority } from '../../src/store/trust.js';
import { WebServer, type WebSource } from '../../src/web/server.js';
import { revisionOf } from '../../src/web/view.js';
import { makeTeam, waitFor } from '../helpers/team.js';

interface Reply { status: number; headers: Record<string, string | string[] | undefined>; body: string }

function fetchRaw(url: string, opts: { method?: string; cookie?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: opts.method ?? 'GET', headers: { ...(opts.cookie ? { Cookie: opts.cookie } : {}), ...(opts.body !== undefined ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}), ...opts.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function served() {
  const team = await makeTeam(['alice']);
  cleanups.push(team.cleanup);
  // the screen's trust root signs the operator's answers, as in a real screen (cli/start.ts trustFor)
  const { run } = await team.store.startRun();
  const authority = new TrustAuthority(team.store.paths, 'test', run, team.store.log);
  team.store.decisionSigner = authority.signer();
  cleanups.push(async () => authority.dispose());
  const view = new TeamView(team.store);
  await view.start();
  cleanups.push(() => view.dispose());
  const logged: string[] = [];
  const source: WebSource = {
    snapshot: () => view.snapshot(),
    onChange: (l) => view.onChange(() => l()),
    events: async (limit) => (await team.store.events.read(limit)).events,
    answer: async (id, to, approve, text) => {
      const r = await team.store.answerRequest(id, to, approve, text);
      return r.ok ? { ok: true } : { ok: false, message: r.message };
    },
    log: { info: (m) => logged.push(m), warn: (m) => logged.push(m) },
  };
  const web = new WebServer(source, { port: 0, listen: '127.0.0.1' });
  const { port } = await web.start();
  cleanups.push(() => web.dispose());
  const base = `http://127.0.0.1:${port}`;
  // log in: the token once in the URL, then the cookie
  const login = await fetchRaw(web.url('/'));
  expect(login.status).toBe(303);
  expect(login.headers.location).toBe('/');
  const setCookie = String(login.headers['set-cookie']);
  expect(setCookie).toMatch(/HttpOnly; SameSite=Strict; Path=\//);
  const cookie = setCookie.split(';')[0]!;
  return { team, view, web, base, cookie, logged, token: cookie.split('=')[1]! };
}

describe('web server', () => {
  it('web.no-token-or-a-wrong-one-is-401-logged-without-the-token', async () => {
    const s = await served();
    expect((await fetchRaw(`${s.base}/`)).status).toBe(401);
    expect((await fetchRaw(`${s.base}/board?token=nope`)).status).toBe(401);
    expect((await fetchRaw(`${s.base}/`, { cookie: 'teamux_1=bad' })).status).toBe(401);
    expect((await fetchRaw(`${s.base}/stream?page=/`)).status).toBe(401);
    const ok = await fetchRaw(`${s.base}/`, { cookie: s.cookie });
    expect(ok.status).toBe(200);
    expect(ok.headers['content-security-policy']).toContain("script-src 'self'");
    expect(ok.body).toContain('<b>test</b>');
    expect(s.logged.filter((l) => l.includes('refused'))).toHaveLength(4);
    expect(s.logged.join('\n')).not.toContain(s.token);
  });

  it('web.approve-from-the-page-answers-through-the-store-and-a-replay-is-refused', async () => {
    const s = await served();
    const opened = await s.team.store.openRequest('plan_approval', 'alice', 'human', '# plan\ndo it');
    expect(opened.ok).toBe(true);
    const req = opened.ok ? opened.value : null!;
    const pageWith = await waitFor(async () => {
      const p = await fetchRaw(`${s.base}/requests/${req.id}`, { cookie: s.cookie });
      return p.status === 200 ? p : null;
    }, 'the request page');
    const csrf = /name="csrf" value="([^"]+)"/.exec(pageWith.body)![1]!;
    const rev = /name="rev" value="([^"]+)"/.exec(pageWith.body)![1]!;
    expect(rev).toBe(revisionOf(req));
    const form = `csrf=${encodeURIComponent(csrf)}&rev=${rev}&decision=approve`;
    // without the CSRF token, and from another origin: refused, nothing answered
    expect((await fetchRaw(`${s.base}/requests/${req.id}/answer`, { method: 'POST', cookie: s.cookie, body: `rev=${rev}&decision=approve` })).status).toBe(403);
    expect((await fetchRaw(`${s.base}/requests/${req.id}/answer`, { method: 'POST', cookie: s.cookie, body: form, headers: { Origin: 'http://evil.example' } })).status).toBe(403);
    expect((await s.team.store.requests.get(req.id)).ok && (await s.team.store.requests.get(req.id) as { value: { status: string } }).value.status).toBe('pending');
    const done = await fetchRaw(`${s.base}/requests/${req.id}/answer`, { method: 'POST', cookie: s.cookie, body: form });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(`/requests/${req.id}?done=approved`);
    const after = await s.team.store.requests.get(req.id);
    expect(after.ok && after.value.status).toBe('approved');
    expect(after.ok && after.value.response?.by).toBe('human');
    expect(after.ok && after.value.response?.signed).not.toBeNull();
    // the same post again: the request is no longer pending
    await waitFor(() => s.view.snapshot().requests.find((r) => r.id === req.id)?.status === 'approved', 'the watch to see the answer');
    const replay = await fetchRaw(`${s.base}/requests/${req.id}/answer`, { method: 'POST', cookie: s.cookie, body: form });
    expect(replay.status).toBe(409);
    expect(replay.body).toContain('nothing to answer');
  });

  it('web.an-answer-for-what-the-page-no-longer-shows-and-a-bare-rejection-are-refused', async () => {
    const s = await served();
    const opened = await s.team.store.openRequest('plan_approval', 'alice', 'human', 'plan v1');
    const req = opened.ok ? opened.value : null!;
    await waitFor(() => s.view.snapshot().requests.some((r) => r.id === req.id), 'the request in the snapshot');
    const csrf = /name="csrf" value="([^"]+)"/.exec((await fetchRaw(`${s.base}/requests/${req.id}`, { cookie: s.cookie })).body)![1]!;
    const stale = await fetchRaw(`${s.base}/requests/${req.id}/answer`, { method: 'POST', cookie: s.cookie, body: `csrf=${encodeURIComponent(csrf)}&rev=old&decision=approve` });
    expect(stale.status).toBe(409);
    expect(stale.body).toContain('changed since the page showed it');
    const bare = await fetchRaw(`${s.base}/requests/${req.id}/answer`, { method: 'POST', cookie: s.cookie, body: `csrf=${encodeURIComponent(csrf)}&rev=${revisionOf(req)}&decision=reject&feedback=%20` });
    expect(bare.status).toBe(400);
    const rejected = await fetchRaw(`${s.base}/requests/${req.id}/answer`, { method: 'POST', cookie: s.cookie, body: `csrf=${encodeURIComponent(csrf)}&rev=${revisionOf(req)}&decision=reject&feedback=${encodeURIComponent('split step 2')}` });
    expect(rejected.status).toBe(303);
    const after = await s.team.store.requests.get(req.id);
    expect(after.ok && [after.value.status, after.value.response?.text]).toEqual(['rejected', 'split step 2']);
    const big = await fetchRaw(`${s.base}/requests/${req.id}/answer`, { method: 'POST', cookie: s.cookie, body: `csrf=${encodeURIComponent(csrf)}&feedback=${'x'.repeat(20_000)}` });
    expect(big.status).toBe(413);
  });

  it('web.the-stream-pushes-a-fresh-body-when-a-task-changes', async () => {
    const s = await served();
    const chunks: string[] = [];
    const closed = new Promise<void>((resolve) => {
      const req = httpRequest(`${s.base}/stream?page=${encodeURIComponent('/board')}`, { headers: { Cookie: s.cookie } }, (res) => {
        expect(res.headers['content-type']).toContain('text/event-stream');
        res.setEncoding('utf8');
        res.on('data', (c: string) => chunks.push(c));
        res.on('close', () => resolve());
      });
      req.end();
      cleanups.unshift(async () => { req.destroy(); await closed; });
    });
    await waitFor(() => chunks.join('').includes('event: page'), 'the first body');
    const first = chunks.join('').length;
    const created = await s.team.store.tasks.create({ subject: 'a task the page must show' });
    expect(created.ok).toBe(true);
    await waitFor(() => chunks.join('').slice(first).includes('a task the page must show'), 'the pushed body with the new task', 10_000);
    expect(chunks.join('').slice(first)).toMatch(/id: \d+\nevent: page\ndata: /);
  });
});
