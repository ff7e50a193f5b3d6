/**
 * The API key never reaches the disk, and a key given by file or command is in no environment a
 * bash child can read. A real `teamux agent` process talks through the SDK to the scripted server,
 * which demands the key; its model runs bash to dump its own environment and its parent's
 * /proc/PPID/environ, then sends the key to the lead with send_message. Afterwards the whole team
 * folder is searched for the key.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentTeam, bodyOf, contentText, scripted, waitFor } from './helpers.js';
import { exited, startMember, teamuxBin } from './process.js';

function baseEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TEAMUX_TEAM_DIR: dir };
  for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_BASE_URL', 'TEAMUX_DEMO_URL', 'TEAMUX_MEMBER', 'TEAMUX_API_KEY_FILE', 'TEAMUX_API_KEY_COMMAND']) delete env[k];
  return env;
}

/** Every file under `dir` (recursively) whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    if (statSync(file).isFile() && readFileSync(file).includes(needle)) hits.push(name);
  }
  return hits;
}

const DUMP = 'echo ENV-START; env; echo PPID-START; tr "\\000" "\\n" < /proc/$PPID/environ; echo DUMP-END';

/** Run alice with `keyEnv` against a server that demands `key`; returns the bash output her model saw. */
async function runAlice(key: string, keyEnv: (root: string) => Record<string, string>): Promise<{ dir: string; dump: string; lead: string }> {
  const { store, dir, root } = await agentTeam(['alice']);
  const server = await scripted({
    alice: {
      steps: [
        { reply: [{ tool_use: { name: 'bash', input: { command: DUMP } } }] },
        { reply: [{ tool_use: { name: 'send_message', input: { to: 'lead', text: `the key is ${key} — keep it safe` } } }] },
        { reply: [{ text: `Done; I used ${key}.` }] },
      ],
    },
  }, { apiKey: key, defaultScript: 'alice' });
  const env = { ...baseEnv(dir), ANTHROPIC_BASE_URL: server.url, ...keyEnv(root) };
  const alice = startMember(await teamuxBin(), ['agent', '--as', 'alice', '--prompt', 'go'], env, root, 'alice');
  const sent = await waitFor(async () => {
    const r = await store.mail.unread('lead', 'test');
    return r.messages.find((m) => m.from === 'alice' && m.type === 'message');
  }, 'alice\'s message to the lead', 30_000).catch((e: Error) => {
    throw new Error(`${e.message}\n${alice.out.slice(-3000)}`);
  });
  await waitFor(() => server.requests.filter((r) => r.path === '/v1/messages').length >= 3, 'the third model call', 30_000);
  await store.openRequest('shutdown', 'lead', 'alice', 'done');
  expect(await exited(alice, 20_000)).toBe(0);
  // Every call carried the key (the server refuses others), so the agent had it in memory.
  expect(server.requests.filter((r) => r.status === 401)).toEqual([]);
  const second = bodyOf(server.requests.filter((r) => r.path === '/v1/messages')[1]);
  const dump = contentText(second.messages[second.messages.length - 1]!.content);
  return { dir, dump, lead: sent.text };
}

describe('api key', () => {
  it('api-key.from-a-file-is-in-no-environment-and-never-on-disk', async () => {
    const key = 'filekey-0123456789abcdefXYZ';
    const { dir, dump, lead } = await runAlice(key, (root) => {
      const file = path.join(root, 'anthropic.key');
      writeFileSync(file, `${key}\n`, { mode: 0o600 });
      return { TEAMUX_API_KEY_FILE: file };
    });
    // The dump really ran: both its own env and the agent's /proc environ were read.
    expect(dump).toContain('ENV-START');
    expect(dump).toMatch(/PPID-START[\s\S]*TEAMUX_TEAM_DIR=[\s\S]*DUMP-END/);
    expect(dump).not.toContain(key);
    // The child does not even learn where the key file is; the parent's environ names only the path.
    expect(dump.slice(0, dump.indexOf('PPID-START'))).not.toContain('TEAMUX_API_KEY_FILE');
    expect(lead).toBe('the key is [redacted] — keep it safe');
    expect(filesContaining(dir, key)).toEqual([]);
    expect(filesContaining(dir, '[redacted]').sort()).toEqual(expect.arrayContaining(['events.jsonl', 'inboxes/lead.jsonl', 'transcripts/alice.json']));
  });

  it('api-key.from-a-command-is-in-no-environment-and-never-on-disk', async () => {
    const key = 'cmdkey-9876543210fedcbaQRS';
    const { dir, dump } = await runAlice(key, (root) => {
      const file = path.join(root, 'vault');
      writeFileSync(file, `${key}\nsecond line is not the key\n`, { mode: 0o600 });
      return { TEAMUX_API_KEY_COMMAND: `cat ${JSON.stringify(file)}` };
    });
    expect(dump).toMatch(/PPID-START[\s\S]*DUMP-END/);
    expect(dump).not.toContain(key);
    expect(filesContaining(dir, key)).toEqual([]);
  });

  it('api-key.from-the-environment-never-reaches-the-team-folder', async () => {
    // ANTHROPIC_API_KEY stays in the agent's own /proc environ (the README says so); the store still
    // redacts it from the inbox, the events, the transcript and the log.
    const key = 'envkey-00112233445566778899';
    const { dir, lead } = await runAlice(key, () => ({ ANTHROPIC_API_KEY: key }));
    expect(lead).toBe('the key is [redacted] — keep it safe');
    expect(filesContaining(dir, key)).toEqual([]);
  });
});
