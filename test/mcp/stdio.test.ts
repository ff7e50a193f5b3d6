// `teamux mcp` on the wire, driven with raw JSON-RPC lines as Claude Code sends them: the
// server/discover probe answered with method-not-found (and the server lives on), garbage lines
// ignored, read_inbox's cursor committed only once the reply has been written to the client, a clean
// exit when stdin closes, and a clear error with exit code 1 outside a team or as a non-member.
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTeam, tempDir, waitFor } from '../helpers/team.js';
import { childEnv, RawMcp } from './helpers.js';

const running: RawMcp[] = [];
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const r of running.splice(0)) r.kill();
  for (const c of cleanups.splice(0)) c();
});

async function team(names: string[]) {
  const t = await makeTeam(names);
  cleanups.push(t.cleanup);
  return t;
}

function start(args: string[], env = childEnv()): RawMcp {
  const r = new RawMcp(args, env);
  running.push(r);
  return r;
}

describe('mcp over stdio', () => {
  it('mcp.server-discover-probe-gets-method-not-found-and-the-server-lives', async () => {
    const t = await team(['alice']);
    const mcp = start(['--as', 'alice', '--team-dir', t.dir]);
    mcp.send({ jsonrpc: '2.0', id: 0, method: 'server/discover', params: {} });
    expect(await mcp.response(0)).toMatchObject({ jsonrpc: '2.0', id: 0, error: { code: -32601, message: 'Method not found' } });
    const init = await mcp.initialize(1);
    expect(init).toMatchObject({ result: { protocolVersion: '2025-11-25', serverInfo: { name: 'teamux' }, capabilities: { tools: {} } } });
    mcp.send('this is not json {');
    mcp.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const list = await mcp.response(2) as { result: { tools: { name: string }[] } };
    expect(list.result.tools.map((x) => x.name)).toContain('read_inbox');
    // tools/call with Claude Code's _meta.
    mcp.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'task_list', arguments: {}, _meta: { 'claudecode/toolUseId': 'toolu_01' } } });
    expect(await mcp.response(3)).toMatchObject({ result: { content: [{ type: 'text', text: 'no tasks match' }], isError: false } });
    // Nothing but JSON-RPC on stdout.
    expect(mcp.raw.split('\n').filter(Boolean).every((l) => (JSON.parse(l) as { jsonrpc?: string }).jsonrpc === '2.0')).toBe(true);
    expect(await mcp.end()).toBe(0);
  });

  it('mcp.requests-sent-before-stdin-closes-are-all-answered', async () => {
    const t = await team(['alice']);
    await t.store.tasks.create({ subject: 'one' });
    const mcp = start(['--as', 'alice', '--team-dir', t.dir]);
    mcp.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    mcp.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    mcp.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'task_claim', arguments: {} } });
    expect(await mcp.end()).toBe(0);
    expect(mcp.lines()).toMatchObject([{ id: 1 }, { id: 2, result: { isError: false } }]);
    expect((await t.store.tasks.get('1'))).toMatchObject({ ok: true, value: { owner: 'alice' } });
  });

  it('mcp.read-inbox-commits-the-cursor-only-after-the-reply-is-written', async () => {
    const t = await team(['alice']);
    // A message larger than a pipe buffer: while the client reads nothing, the reply cannot be written.
    const big = 'a'.repeat(600_000);
    await t.store.send({ from: 'lead', to: 'alice', type: 'message', text: big });
    await t.store.send({ from: 'lead', to: 'alice', type: 'message', text: 'second' });
    const cursorFile = t.store.paths.cursor('alice', 'alice');
    const mcp = start(['--as', 'alice', '--team-dir', t.dir]);
    await mcp.initialize(1);

    // A peek returns them and leaves them unread.
    mcp.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_inbox', arguments: { peek: true } } });
    expect(((await mcp.response(2)) as { result: { content: { text: string }[] } }).result.content[0]!.text).toContain('"text":"second"');
    expect(existsSync(cursorFile)).toBe(false);

    // Stop reading stdout, ask for the inbox, and wait until the reply has started to come out.
    mcp.child.stdout.pause();
    const before = mcp.raw.length;
    mcp.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'read_inbox', arguments: {} } });
    // Pause again inside the first chunk's own 'data' event, so that on a loaded machine the event
    // loop cannot drain the whole reply between the resume and a later pause.
    mcp.child.stdout.once('data', () => mcp.child.stdout.pause());
    mcp.child.stdout.resume();
    await waitFor(() => mcp.raw.length > before, 'the start of the read_inbox reply');
    // Part of the reply is out, the rest is stuck behind the full pipe: the cursor has not moved.
    // (A negative can only be checked over a window; 500 ms is many times the commit's own cost.)
    await new Promise((r) => setTimeout(r, 500));
    expect(mcp.raw.length - before).toBeLessThan(big.length);
    expect(existsSync(cursorFile)).toBe(false);
    mcp.child.stdout.resume();
    const reply = (await mcp.response(3)) as { result: { content: { text: string }[]; isError: boolean } };
    expect(reply.result.isError).toBe(false);
    expect(reply.result.content[0]!.text.split('\n').map((l) => (JSON.parse(l) as { text: string }).text.length)).toEqual([big.length, 6]);
    await waitFor(() => existsSync(cursorFile), 'the cursor to be committed after delivery');

    // Read: nothing left.
    mcp.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'read_inbox', arguments: {} } });
    expect(await mcp.response(4)).toMatchObject({ result: { content: [{ text: 'no unread messages' }] } });
    expect(await mcp.end()).toBe(0);
  });

  it('mcp.read-inbox-waits-for-a-message', async () => {
    const t = await team(['alice']);
    const mcp = start(['--as', 'alice', '--team-dir', t.dir]);
    await mcp.initialize(1);
    mcp.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_inbox', arguments: { wait_s: 30 } } });
    // The wait is on a file watch: a message sent later ends it.
    await waitFor(() => existsSync(t.store.paths.inboxes), 'the inbox folder');
    await t.store.send({ from: 'lead', to: 'alice', type: 'message', text: 'wake up' });
    expect(await mcp.response(2)).toMatchObject({ result: { content: [{ text: expect.stringContaining('"text":"wake up"') }] } });
    // A wait in progress does not keep the server alive once the client is gone.
    mcp.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'read_inbox', arguments: { wait_s: 600 } } });
    expect(await mcp.end()).toBe(0);
  });

  it('mcp.outside-a-team-or-as-a-stranger-exits-1-with-a-message-on-stderr', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const outside = new RawMcp(['--as', 'alice'], childEnv());
    running.push(outside);
    outside.child.stdin.end();
    expect(await outside.exited()).toBe(1);
    expect(outside.raw).toBe('');
    expect(outside.stderr).toMatch(/^teamux: no team folder given\n  hint: pass --team-dir DIR/);
    expect(outside.stderr).not.toMatch(/\bat .*\.js:\d+/);

    const missing = start(['--as', 'alice', '--team-dir', tmp.dir]);
    expect(await missing.exited()).toBe(1);
    expect(missing.stderr).toMatch(/^teamux: no team at /);

    const t = await team(['alice']);
    const stranger = start(['--as', 'mallory', '--team-dir', t.dir]);
    expect(await stranger.exited()).toBe(1);
    expect(stranger.raw).toBe('');
    expect(stranger.stderr).toMatch(/^teamux: "mallory" is not a member of team test .*\n  hint: members: lead, alice/);

    const bad = start(['--as', 'alice', '--team-dir', t.dir, '--bogus']);
    expect(await bad.exited()).toBe(1);
    expect(bad.stderr).toMatch(/^teamux: Unknown option '--bogus'/);
  });
});
