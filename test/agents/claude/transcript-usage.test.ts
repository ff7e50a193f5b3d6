/**
 * The tokens of a Claude Code transcript, one rule (src/protocol/transcript-usage.ts) in every form that
 * reads them: the node status line (hook-answers.ts transcriptTokens, the whole file), the usage copy
 * budgets count (store/claude-usage.ts transcriptUsageRecords) and the Perl status line (hook-perl.ts,
 * read on from where it stopped). A transcript with every odd thing a line can hold (repeated
 * responses, keys that are not strings, negative, fractional, quoted and huge counts, records that are
 * not responses, a half-written last line) gives all three the same sums and model.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { transcriptTokens } from '../../../src/agents/claude/hook-answers.js';
import { perlHookScript } from '../../../src/agents/claude/hook-perl.js';
import { hookCommand } from '../../../src/agents/claude/launch.js';
import { readClaudeActivity } from '../../../src/store/claude.js';
import { scriptDigest } from '../../../src/store/exec-folder.js';
import { transcriptUsageRecords } from '../../../src/store/claude-usage.js';
import { PERL, runHook } from '../../helpers/hook-shell.js';
import { BIN, makeTeam } from '../../helpers/team.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => cleanup?.());

/** One transcript line: an assistant record with `usage`, and whatever else is given. */
const line = (message: Record<string, unknown>, rest: Record<string, unknown> = {}): string => `${JSON.stringify({ type: 'assistant', ...rest, message: { role: 'assistant', content: [], ...message } })}\n`;
const usage = (input: unknown, output: unknown, cacheRead: unknown = 0, cacheWrite: unknown = 0) => ({ input_tokens: input, output_tokens: output, cache_read_input_tokens: cacheRead, cache_creation_input_tokens: cacheWrite });

/** The transcript, as two parts written one after the other (the Perl form reads the second on from the first). */
const FIRST = [
  line({ id: 'm1', model: 'claude-sonnet-5', usage: usage(100, 20, 10, 1) }),
  line({ id: 'm1', model: 'claude-sonnet-5', usage: usage(100, 20, 10, 1) }),
  // Counts that are not whole numbers from 0: nothing; 1e3, 4.0, 2.0 and 1e1 are whole numbers.
  line({ id: 'm2', usage: usage(-50, 2.5, '300', 1e20) }),
  line({ id: 'm3', usage: usage(1e3, 4.0, true, null) }),
  '{"type":"assistant","message":{"id":"m8","usage":{"input_tokens":2.0,"output_tokens":1e1}}}\n',
  // A key that is not a string: the requestId is; an empty id: the requestId too.
  line({ id: 7, model: 5, usage: usage(1, 1) }, { requestId: 'req-a' }),
  line({ id: '', usage: usage(2, 2) }, { requestId: 'req-a' }),
  line({ id: '', usage: usage(3, 3) }, { requestId: 'req-b' }),
  // No key: each line counts.
  line({ usage: usage(5, 0) }),
  line({ usage: usage(5, 0) }),
].join('');
const SECOND = [
  // Not responses: another type, usage that is not an object, a type spelled with an escape, garbage.
  `${JSON.stringify({ type: 'user', message: { usage: usage(1000, 1000) } })}\n`,
  line({ id: 'm4', usage: [1, 2] }),
  '{"type":"\\u0061ssistant","message":{"id":"m5","usage":{"input_tokens":1000,"output_tokens":0}}}\n',
  '{"type":"assistant","usage" nonsense\n',
  line({ id: 'm6', model: 'claude-opus-5', usage: usage(7, 8, 9, 10) }),
  // Half-written: not read yet.
  line({ id: 'm7', usage: usage(500, 500) }).trimEnd(),
].join('');

describe('the tokens of a transcript, one rule in every form', () => {
  it('claude.transcript-usage-the-status-lines-and-the-usage-copy-count-the-same-tokens', async () => {
    // By hand: m1 100+10+1 / 20; m2 0 / 0; m3 1000 / 4; m8 2 / 10; req-a 1 / 1; req-b 3 / 3; two keyless 5 / 0 each; m6 7+9+10 / 8.
    const expected = { input: 111 + 1000 + 2 + 1 + 3 + 10 + 26, output: 20 + 4 + 10 + 1 + 3 + 8, model: 'claude-opus-5' };
    const text = FIRST + SECOND;
    expect(transcriptTokens(text)).toEqual(expected);

    const records = transcriptUsageRecords(text, new Set(), () => null, '2026-01-01T00:00:00.000Z');
    const sum = records.reduce((s, r) => ({ input: s.input + r.input + r.cacheRead + r.cacheWrite, output: s.output + r.output }), { input: 0, output: 0 });
    expect({ ...sum, model: records.at(-1)?.model }).toEqual(expected);
    // Read in two parts, the second on from the first, with the keys seen kept: the same.
    const seen = new Set<string>();
    const parts = [...transcriptUsageRecords(FIRST, seen, () => null, ''), ...transcriptUsageRecords(SECOND, seen, () => null, '')];
    expect(parts.map((r) => [r.input, r.output, r.cacheRead, r.cacheWrite])).toEqual(records.map((r) => [r.input, r.output, r.cacheRead, r.cacheWrite]));

    if (!PERL) return void process.stderr.write('  NOTICE: no perl: the Perl status line was not compared (SKIPPED)\n');
    const t = await makeTeam(['amy'], { runtime: 'claude' });
    cleanup = t.cleanup;
    const script = path.join(t.dir, '..', 'hooks');
    writeFileSync(script, perlHookScript(PERL, '/nonexistent/node', BIN), { mode: 0o700 });
    const command = hookCommand({ member: 'amy', teamDir: t.dir, teamuxBin: BIN, node: process.execPath, permissionTimeout: 60, perlHooks: { perl: PERL, file: script, sha256: scriptDigest(perlHookScript(PERL, '/nonexistent/node', BIN)) } }, 'StatusLine');
    const transcript = path.join(t.dir, '..', 'transcript.jsonl');
    const input = JSON.stringify({ session_id: 's', transcript_path: transcript });
    writeFileSync(transcript, FIRST);
    expect((await runHook(command, input)).code).toBe(0);
    appendFileSync(transcript, SECOND);
    const r = await runHook(command, input);
    expect(r.err).toBe('');
    expect(r.out).toBe(`teamux amy · starting · ${expected.input + expected.output} tokens\n`);
    const activity = await readClaudeActivity(t.store.paths, 'amy');
    expect({ ...activity?.tokens, model: activity?.model }).toEqual(expected);
  });
});
