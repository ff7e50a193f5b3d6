// attention.webhook: a JSON notice POSTed to a real local HTTP server when a request starts waiting —
// ntfy's JSON form with a topic, the token-less link to the request as `click`, once per request.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Attention } from '../../src/app/attention.js';
import type { ProtocolRequest } from '../../src/protocol/types.js';
import { waitFor } from '../helpers/team.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function receiver(status = 200): Promise<{ url: string; got: Array<{ path: string; type: string | undefined; body: Record<string, unknown> }> }> {
  const got: Array<{ path: string; type: string | undefined; body: Record<string, unknown> }> = [];
  const server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (c: Buffer) => { text += c.toString('utf8'); });
    req.on('end', () => {
      got.push({ path: req.url ?? '', type: req.headers['content-type'], body: JSON.parse(text) as Record<string, unknown> });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

const req = (id: string): ProtocolRequest => ({ version: 2, id, type: 'plan_approval', run: 'r', from: 'alice', to: 'human', status: 'pending', body: 'Plan:\x1b[2J do it', createdAt: new Date().toISOString(), resolvedAt: null, response: null } as ProtocolRequest);

describe('attention webhook', () => {
  it('webhook.posts-ntfy-json-with-the-link-once-per-request', async () => {
    const r = await receiver();
    const warned: string[] = [];
    const a = new Attention({ bell: false, title: false, notify: null, webhook: { url: r.url, topic: 'team-alerts' } }, 'demo', () => undefined, { warn: (m) => warned.push(m) });
    cleanups.push(() => a.dispose());
    a.linkTo = (q) => `http://127.0.0.1:7777/requests/${q.id}`;
    a.update([req('req-aaaa-1')]);
    a.update([req('req-aaaa-1')]);
    await waitFor(() => r.got.length === 1, 'the webhook post');
    expect(r.got[0]!.type).toBe('application/json');
    expect(r.got[0]!.body).toMatchObject({ topic: 'team-alerts', title: 'teamux: demo', message: 'alice: plan awaiting approval: Plan: [2J do it', click: 'http://127.0.0.1:7777/requests/req-aaaa-1', request: { id: 'req-aaaa-1', from: 'alice' } });
    expect(JSON.stringify(r.got[0]!.body)).not.toContain('token');
    a.update([req('req-aaaa-1'), req('req-bbbb-2')]);
    await waitFor(() => r.got.length === 2, 'the second post');
    expect(r.got[1]!.body['click']).toBe('http://127.0.0.1:7777/requests/req-bbbb-2');
    expect(warned).toEqual([]);
  });

  it('webhook.a-failing-endpoint-is-logged-and-nothing-else-breaks', async () => {
    const r = await receiver(500);
    const warned: string[] = [];
    const a = new Attention({ bell: false, title: false, notify: null, webhook: { url: `${r.url}/hook`, topic: null } }, 'demo', () => undefined, { warn: (m) => warned.push(m) });
    cleanups.push(() => a.dispose());
    a.update([req('req-cccc-3')]);
    await waitFor(() => warned.length === 1, 'the warning');
    expect(r.got[0]!.path).toBe('/hook');
    expect(r.got[0]!.body['topic']).toBeUndefined();
    expect(warned[0]).toMatch(/^webhook 127\.0\.0\.1:\d+ answered 500$/);
  });
});
