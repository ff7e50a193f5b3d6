/**
 * The trust/ folder, where an agent lead gets a certificate for its in-memory key: the lead writes
 * `enrol-<id>.json` (its public key, MAC'd with the one-time token it got in env), and the screen that
 * started it answers with `answer-<id>.json`: a certificate signed by the screen's root key, or a
 * refusal saying why. TrustAuthority is the screen's side. It owns the root keypair and the unused
 * enrolment tokens, in memory only (never on disk, in any process's environment, or in logs): a lead
 * fetches its token from the screen's enrolment socket (app/enrol-socket.ts), which hands it only to
 * a process in the lead's own pane, once; the first valid enrolment of a token consumes it.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { createConnection } from 'node:net';
import { z } from '../protocol/zod.js';
import {
  Certificate, certificateValid, Enrolment, enrolmentValid, issueCertificate, keyId, leadSigner, makeEnrolment, newKeyPair, parsePublicKey, rootSigner,
  type DecisionSigner, type KeyPair, type TrustAnchor,
} from '../protocol/trust.js';
import { ensureDir, parseJson, readText, writeJson } from './fsx.js';
import type { Log } from './log.js';
import type { TeamPaths } from './paths.js';
import { waitOnFolder } from './watch.js';

/** The screen's answer to an enrolment. */
export const EnrolmentAnswer = z.union([z.object({ certificate: Certificate }), z.object({ refused: z.string() })]);
export type EnrolmentAnswer = z.infer<typeof EnrolmentAnswer>;

/** Reading and writing enrolments and their answers. */
export class TrustFiles {
  constructor(private readonly paths: TeamPaths) {}

  /** Write an enrolment; returns its id (the name the answer will have). */
  async submit(e: Enrolment): Promise<string> {
    await ensureDir(this.paths.trust);
    const id = `${e.member}-${randomBytes(6).toString('hex')}`;
    await writeJson(this.paths.enrolment(id), e);
    return id;
  }

  /** The answer to enrolment `id`, once the screen has written it. */
  async answer(id: string): Promise<EnrolmentAnswer | undefined> {
    const file = this.paths.enrolmentAnswer(id);
    const text = await readText(file, 'record');
    if (text === undefined) return undefined;
    const json = parseJson(file, text);
    const parsed = json.ok ? EnrolmentAnswer.safeParse(json.value) : null;
    return parsed?.success ? parsed.data : { refused: `${file} cannot be read` };
  }

  /** Wait up to `timeoutMs` for the answer to enrolment `id`. */
  async waitForAnswer(id: string, timeoutMs: number, signal?: AbortSignal): Promise<EnrolmentAnswer | undefined> {
    await ensureDir(this.paths.trust);
    return waitOnFolder(this.paths.trust, timeoutMs, () => this.answer(id), { only: (n) => n.startsWith('answer-'), everyMs: 1000, signal });
  }

  /** Ids of enrolments that have no answer yet. */
  async unanswered(): Promise<string[]> {
    const names = await fsp.readdir(this.paths.trust).catch(() => [] as string[]);
    const answered = new Set(names.filter((n) => /^answer-.*\.json$/.test(n)).map((n) => n.slice(7, -5)));
    return names.filter((n) => /^enrol-[a-z0-9_-]+\.json$/.test(n)).map((n) => n.slice(6, -5)).filter((id) => !answered.has(id));
  }

  /** Read an enrolment file, or say why it is not one. */
  async read(id: string): Promise<Enrolment | string> {
    const file = this.paths.enrolment(id);
    const text = await readText(file, 'record');
    const json = text === undefined ? null : parseJson(file, text);
    if (!json?.ok) return 'unreadable';
    const parsed = Enrolment.safeParse(json.value);
    return parsed.success ? parsed.data : 'not an enrolment';
  }

  /** Write the answer to enrolment `id`. */
  async reply(id: string, answer: EnrolmentAnswer): Promise<void> {
    await writeJson(this.paths.enrolmentAnswer(id), answer);
  }
}

/** The outcome of an enrolment: the lead's signer, or why it has none. */
export type Enrolled = { signer: DecisionSigner } | { why: string };

/**
 * Enrol a fresh in-memory key for `member` with the one-time `token` its screen gave it: write the
 * MAC'd enrolment, wait (bounded) for the screen's answer, and check the certificate against the
 * trust key fixed at start before trusting it. Shared by teamux's agent lead and `teamux mcp --as
 * LEAD` (a Claude Code lead); the caller says the outcome where its user sees it.
 */
export async function enrolKey(files: TrustFiles, anchor: TrustAnchor | null, member: string, token: string, timeoutMs: number, signal?: AbortSignal): Promise<Enrolled> {
  if (!anchor) return { why: 'this lead has an enrolment token but TEAMUX_TRUST_KEY or the run is missing' };
  const keys = newKeyPair();
  const id = await files.submit(makeEnrolment(token, { team: anchor.team, run: anchor.run, member, publicKey: keys.publicKey }));
  const answer = await files.waitForAnswer(id, timeoutMs, signal);
  if (!answer) return { why: `the teamux screen did not answer the enrolment within ${Math.round(timeoutMs / 1000)} s` };
  if ('refused' in answer) return { why: `the teamux screen refused the enrolment: ${answer.refused}` };
  const cert = answer.certificate;
  if (cert.publicKey !== keys.publicKey || !certificateValid(anchor.trustKey, cert, { team: anchor.team, run: anchor.run, member })) {
    return { why: 'the certificate is not signed by this screen\'s key for this key (a forged answer?)' };
  }
  return { signer: leadSigner(keys.privateKey, cert) };
}

/**
 * What the operator does when the lead's key cannot be enrolled again (Claude Code restarted its MCP
 * server inside the same process, which still holds the used token): every start of the lead's process
 * by the screen brings a fresh token.
 */
export const RE_ENROL_HINT = 'If Claude Code restarted its MCP server, that start of the lead has used its token: end the lead (/exit in its pane) and restart it with C-a R; the screen gives every new lead process a fresh token';

/** How long a lead waits for the enrolment socket's answer (the screen checks which process asks). */
export const TOKEN_FETCH_TIMEOUT_MS = 10_000;

/**
 * Ask the screen's enrolment socket for `member`'s one-time token: one JSON line out
 * (`{member, pid}`), one back (`{token}` or `{refused}`). The pid only speeds the screen's check
 * (it is verified against the kernel's socket table); the screen decides from the process it finds.
 */
export function fetchEnrolToken(socket: string, member: string, timeoutMs = TOKEN_FETCH_TIMEOUT_MS): Promise<{ token: string } | { why: string }> {
  return new Promise((resolve) => {
    let text = '';
    const done = (r: { token: string } | { why: string }): void => {
      clearTimeout(timer);
      conn.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done({ why: `the teamux screen's enrolment socket ${socket} did not answer within ${Math.round(timeoutMs / 1000)} s` }), timeoutMs);
    const conn = createConnection(socket, () => conn.write(`${JSON.stringify({ member, pid: process.pid })}\n`));
    conn.setEncoding('utf8');
    conn.on('data', (chunk: string) => {
      text += chunk;
      const nl = text.indexOf('\n');
      if (nl < 0) return text.length > 4096 ? done({ why: 'the enrolment socket answered garbage' }) : undefined;
      const json = parseJson(socket, text.slice(0, nl));
      const v = json.ok ? (json.value as { token?: unknown; refused?: unknown }) : {};
      if (typeof v.token === 'string' && v.token.length > 0) return done({ token: v.token });
      done({ why: typeof v.refused === 'string' ? `the teamux screen refused to hand out the token: ${v.refused}` : 'the enrolment socket answered garbage' });
    });
    conn.on('error', (err: NodeJS.ErrnoException) => done({ why: `cannot reach the teamux screen's enrolment socket ${socket}: ${err.code ?? err.message}` }));
  });
}

/**
 * The lead's one-time token: from the screen's enrolment socket (TEAMUX_ENROL_SOCKET, what `teamux
 * start` gives), or TEAMUX_ENROL_TOKEN when a launcher of one's own put it in the environment;
 * undefined when neither is set (this member enrols nothing).
 */
export async function enrolTokenOf(env: NodeJS.ProcessEnv, member: string): Promise<{ token: string } | { why: string } | undefined> {
  const given = env.TEAMUX_ENROL_TOKEN;
  if (given) return { token: given };
  const socket = env.TEAMUX_ENROL_SOCKET;
  return socket ? fetchEnrolToken(socket, member) : undefined;
}

/** The screen's trust root for one run: signs the operator's decisions and certifies the lead's key. */
export class TrustAuthority {
  // fixed at construction; the private key lives only in this object
  private readonly keys: KeyPair = newKeyPair();
  private readonly files: TrustFiles;
  // one-time tokens not yet used: token → the member it was given to
  private readonly tokens = new Map<string, string>();
  private readonly used = new Set<string>();
  // tokens given to a member's earlier process, replaced unused when it was restarted
  private readonly replaced = new Set<string>();
  // tokens already handed out over the enrolment socket (each goes to one caller only)
  private readonly handed = new Set<string>();
  // the folder watch, released by dispose()
  private stop: AbortController | null = null;

  constructor(private readonly paths: TeamPaths, private readonly team: string, readonly run: string, private readonly log: Log) {
    this.files = new TrustFiles(paths);
  }

  /** The root public key, for TEAMUX_TRUST_KEY. */
  get publicKey(): string {
    return this.keys.publicKey;
  }

  /** The signer for the operator's plan decisions. */
  signer(): DecisionSigner {
    return rootSigner(this.keys.privateKey);
  }

  /**
   * A fresh one-time enrolment token for `member` (put in that member's env only). Each start of the
   * member's process gets one; a token given to an earlier process and not used is void from then on.
   */
  issueToken(member: string): string {
    for (const [old, to] of this.tokens) {
      if (to !== member) continue;
      this.tokens.delete(old);
      this.replaced.add(old);
    }
    const token = randomBytes(32).toString('base64url');
    this.tokens.set(token, member);
    return token;
  }

  /**
   * The current token of `member`, handed out once (over the enrolment socket, to a caller already
   * placed in that member's pane): a second caller for the same start is refused.
   */
  handOut(member: string): { token: string } | { refused: string } {
    for (const [token, to] of this.tokens) {
      if (to !== member) continue;
      if (this.handed.has(token)) return { refused: `${member}'s token for this start was already handed out: one process enrols per start. ${RE_ENROL_HINT}` };
      this.handed.add(token);
      return { token };
    }
    return { refused: `${member} has no unused enrolment token (plan_approver is not ${member}, or its token was used). ${RE_ENROL_HINT}` };
  }

  /** Answer one enrolment: a certificate for the first valid use of a token, a refusal otherwise. */
  async handle(id: string): Promise<EnrolmentAnswer> {
    const e = await this.files.read(id);
    const answer = typeof e === 'string' ? { refused: e } : this.decide(e);
    // Logged before the answer is out: the record of a decision never trails what it let happen.
    if ('refused' in answer) this.log.warn(`refused the enrolment ${id}: ${answer.refused}`);
    else this.log.info(`certified ${answer.certificate.member}'s key ${keyId(answer.certificate.publicKey)} for run ${this.run}`);
    await this.files.reply(id, answer);
    return answer;
  }

  private decide(e: Enrolment): EnrolmentAnswer {
    if (e.team !== this.team || e.run !== this.run) return { refused: `the enrolment is for team ${e.team} run ${e.run}, not ${this.team} run ${this.run}` };
    if (!parsePublicKey(e.publicKey)) return { refused: 'the public key is not an ed25519 key' };
    for (const token of [...this.tokens.keys(), ...this.used, ...this.replaced]) {
      if (!enrolmentValid(token, e)) continue;
      if (this.used.has(token)) return { refused: `its token was already used: a token enrols one process only. ${RE_ENROL_HINT}` };
      if (this.replaced.has(token)) return { refused: `its token was given to an earlier process of ${e.member} and replaced when ${e.member} was restarted` };
      if (this.tokens.get(token) !== e.member) return { refused: `the token was not given to ${e.member}` };
      this.tokens.delete(token);
      this.used.add(token);
      return { certificate: issueCertificate(this.keys.privateKey, { team: this.team, run: this.run, member: e.member, publicKey: e.publicKey }) };
    }
    return { refused: 'it is not authenticated by a token this screen gave out' };
  }

  /** Watch the trust folder and answer every enrolment as it arrives, until dispose(). */
  async serve(): Promise<void> {
    const stop = new AbortController();
    this.stop = stop;
    await ensureDir(this.paths.trust);
    void (async () => {
      while (!stop.signal.aborted) {
        await waitOnFolder(this.paths.trust, 60_000, async () => {
          const ids = await this.files.unanswered();
          for (const id of ids) await this.handle(id).catch((err: Error) => this.log.error(`enrolment ${id}`, err));
          return undefined;
        }, { only: (n) => n.startsWith('enrol-'), everyMs: 2000, signal: stop.signal });
      }
    })();
  }

  /** Stop watching. */
  dispose(): void {
    this.stop?.abort();
  }
}
