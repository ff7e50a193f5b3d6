// A hostile Claude Code member answering its own permission request, with the real binary (`claude -p`,
// the pinned version) against a scripted Messages API on 127.0.0.1 and teamux's generated settings:
// while its PermissionRequest hook waits, the member's side writes an "approved" answer into the
// request file (signed with a key of its own, as its Bash could). The hook does not hand it over, so
// Claude Code denies the call (in -p mode no answer is a denial) and the file is not created. The same
// call allowed by the screen's signed answer runs.
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type LoggedRequest, type ScriptedServer } from '../../../src/demo/server.js';
import { newKeyPair, OPERATOR, permissionClaimOf, rootSigner } from '../../../src/protocol/trust.js';
import type { ProtocolRequest } from '../../../src/protocol/types.js';
import type { TeamStore } from '../../../src/store/team.js';
import { trustRoot } from '../../agent/helpers.js';
import { claudeCodeForTests, claudePrint, printMemberFiles } from '../../helpers/claude-code.js';
import { makeTeam, waitFor } from '../../helpers/team.js';

const CLAUDE = claudeCodeForTests();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const bodyText = (r: LoggedRequest): string => JSON.stringify(r.body);

/** `claude -p PROMPT` as member bob with teamux's settings. */
function claudeP(prompt: string, opts: { root: string; home: string; settings: string; server: ScriptedServer; env: Record<string, string> }): Promise<{ code: number; out: string }> {
  return claudePrint(CLAUDE!, prompt, { member: 'bob', root: opts.root, home: opts.home, settings: opts.settings, apiUrl: opts.server.url, env: opts.env, onCleanup: (kill) => cleanups.push(kill) });
}

describe.skipIf(!CLAUDE)('permission answers with the real Claude Code binary', () => {
  it('claude.real-binary-a-member-forging-its-permission-answer-gets-a-denial', async () => {
    const t = await makeTeam(['bob'], { runtime: 'claude' });
    cleanups.push(t.cleanup);
    const store: TeamStore = t.store;
    const root = (await store.config()).root;
    const { screen, run, env } = await trustRoot(t.dir);
    const { home, settings } = printMemberFiles(root, t.dir, 'bob');
    const forged = path.join(root, 'forged.txt');
    const real = path.join(root, 'real.txt');
    const server = await startScriptedServer({
      scripts: {
        bob: {
          idle_reply: '(bob waits)',
          steps: [
            { when: { last_user_contains: 'first' }, reply: [{ tool_use: { name: 'Bash', input: { command: `touch ${forged}`, description: 'Create forged.txt' } } }] },
            { reply: [{ text: 'first over' }] },
            { when: { last_user_contains: 'second' }, reply: [{ tool_use: { name: 'Bash', input: { command: `touch ${real}`, description: 'Create real.txt' } } }] },
            { reply: [{ text: 'second over' }] },
          ],
        },
      } as never,
    });
    cleanups.push(() => server.close());
    const opts = { root, home, settings, server, env: { TEAMUX_TEAM_DIR: t.dir, TEAMUX_TRUST_KEY: env.TEAMUX_TRUST_KEY!, TEAMUX_RUN: run } };
    const pending = (command: string) => waitFor(async () => (await store.requests.list()).requests.find((r) => r.type === 'permission' && r.status === 'pending' && r.body === `Bash: ${command}`), `the permission request for ${command}`, 60_000);

    // bob's side answers its own request: "approved", signed with a key it made.
    const first = claudeP('first', opts);
    const q: ProtocolRequest = await pending(`touch ${forged}`);
    const at = new Date().toISOString();
    const signed = rootSigner(newKeyPair().privateKey).signPermission!(permissionClaimOf((await store.config()).name, q, true, 'ok'));
    writeFileSync(store.paths.request(q.id), JSON.stringify({ ...q, status: 'approved', resolvedAt: at, response: { by: OPERATOR, approve: true, text: 'ok', at, signed } }, null, 2));
    const r1 = await first;
    expect(r1.out).toContain('first over');
    const afterForge = await server.waitForRequest((r) => r.member === 'bob' && bodyText(r).includes('tool_result'), 10_000);
    expect(bodyText(afterForge)).toContain('is_error');
    expect(existsSync(forged)).toBe(false);

    // The operator's signed answer from the screen: the same kind of call runs.
    const second = claudeP('second', opts);
    const q2 = await pending(`touch ${real}`);
    const ok = await screen.answerRequest(q2.id, OPERATOR, true, 'approved by the operator');
    if (!ok.ok) throw new Error(ok.message);
    expect((await second).out).toContain('second over');
    expect(existsSync(real)).toBe(true);
  }, 180_000);
});
