/**
 * The CLAUDE TEAM traffic misses nothing: Claude Code empties an inbox once it delivers the message,
 * so a reader that only polls sees the messages that happen to sit there at its ticks. A real child
 * process plays Claude Code's mailbox: it writes one message into an inbox (alternately in place and
 * by temp file + rename), holds it a few ms, empties the file, many times over two inboxes. Every
 * message must appear in the watch's traffic exactly once. As a reference in the same run, a reader
 * that polls every CLAUDE_TEAM_POLL_MS (the watch before the inbox folder was watched) counts what it saw.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLAUDE_TEAM_POLL_MS, watchClaudeTeam } from '../../../src/agents/claude/native-team-watch.js';
import { readClaudeTeam, type ClaudeTeamView } from '../../../src/store/claude-team-files.js';
import { Log } from '../../../src/store/log.js';
import { tempDir, waitFor } from '../../helpers/team.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const SESSION = 'd97ebe46-ed21-4f79-bae8-c9ee7cc49b58';
const TEAM = 'session-d97ebe46';
// Claude Code holds a message until its reader's next turn boundary (seconds). 150 ms is far shorter
// than that and well under the 250 ms poll, yet longer than the event-loop stalls a loaded CI machine
// shows: at 40 ms a loaded run missed 1 of 300.
const COUNT = 120;
const HOLD_MS = 150;

// Claude Code's mailbox, sped up: write, hold, empty; half the writes in place, half atomically.
const WRITER = `
const fs = require('node:fs'); const path = require('node:path');
const [dir, count, hold] = process.argv.slice(1).map((v, i) => i === 0 ? v : Number(v));
const write = (file, value, atomic) => {
  const text = JSON.stringify(value, null, 2);
  if (!atomic) return fs.writeFileSync(file, text);
  const tmp = file + '.tmp.' + process.pid; fs.writeFileSync(tmp, text); fs.renameSync(tmp, file);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  for (let i = 0; i < count; i++) {
    const to = i % 2 === 0 ? 'amy' : 'team-lead';
    const file = path.join(dir, to + '.json');
    const ts = new Date(Date.UTC(2026, 11, 1, 15, 0, 0, i)).toISOString();
    write(file, [{ from: to === 'amy' ? 'team-lead' : 'amy', text: 'message ' + i, timestamp: ts, msg_id: 'm' + i, type: 'message', read: false }], i % 4 < 2);
    await sleep(hold);
    write(file, [], i % 4 >= 2);
    await sleep(2);
  }
})();
`;

function runWriter(inboxes: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', WRITER, inboxes, String(COUNT), String(HOLD_MS)], { timeout: 120_000 }, (err) => (err ? reject(err) : resolve()));
  });
}

describe('the Claude Code team watch', () => {
  it('claude-team-watch.every-message-written-then-emptied-appears-exactly-once', async () => {
    const tmp = tempDir('teamux-claude-watch-');
    cleanups.push(tmp.cleanup);
    const teamDir = path.join(tmp.dir, '.claude', 'teams', TEAM);
    const inboxes = path.join(teamDir, 'inboxes');
    mkdirSync(inboxes, { recursive: true });
    writeFileSync(path.join(teamDir, 'config.json'), JSON.stringify({ name: TEAM, leadSessionId: SESSION, members: [{ name: 'team-lead', backendType: 'in-process' }, { name: 'amy', backendType: 'tmux', tmuxPaneId: '%1' }] }));

    const views: ClaudeTeamView[] = [];
    const watch = watchClaudeTeam({ home: tmp.dir, leadSession: () => SESSION, log: new Log(path.join(tmp.dir, 'teamux.log'), 'test'), onChange: (v) => views.push(v) });
    cleanups.push(() => watch.dispose());
    await waitFor(() => views.length > 0, 'the first view of the team', 30_000);

    // The reference: a plain poll every CLAUDE_TEAM_POLL_MS over the same files.
    const polled = new Set<string>();
    let polling = true;
    const poll = (async () => {
      while (polling) {
        for (const m of (await readClaudeTeam(tmp.dir, TEAM))?.inbox ?? []) polled.add(m.id);
        await new Promise((r) => setTimeout(r, CLAUDE_TEAM_POLL_MS));
      }
    })();
    cleanups.push(async () => { polling = false; await poll; });

    const t0 = Date.now();
    await runWriter(inboxes);
    const ms = Date.now() - t0;
    const seen = (): Set<string> => new Set(views.flatMap((v) => v.traffic.map((m) => m.id)));
    await waitFor(() => seen().size === COUNT, `all ${COUNT} messages in the traffic (have ${seen().size})`, 30_000).catch(() => undefined);
    polling = false;
    await poll;
    const ids = seen();
    process.stdout.write(`claude-team-watch: ${COUNT} messages held ${HOLD_MS} ms each over ${ms} ms: the watch saw ${ids.size}/${COUNT}, a ${CLAUDE_TEAM_POLL_MS} ms poll (reference) saw ${polled.size}/${COUNT}\n`);
    expect([...ids].sort()).toEqual(Array.from({ length: COUNT }, (_, i) => `m${i}`).sort());
    // Exactly once: no view ever lists a message twice.
    for (const v of views) expect(new Set(v.traffic.map((m) => m.id)).size).toBe(v.traffic.length);
    // The traffic shown is the newest messages, oldest first.
    expect(views.at(-1)!.traffic.map((m) => m.text)).toEqual(Array.from({ length: 100 }, (_, i) => `message ${COUNT - 100 + i}`));
  }, 180_000);
});
