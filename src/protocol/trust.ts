/**
 * Signed plan decisions and permission answers: who may open a plan gate or let a Claude Code member's
 * tool run, decided by Ed25519 signatures instead of by names written in files. The trust root is a keypair that one teamux screen (the TUI process) generates in
 * memory; its public key reaches every member it starts (env TEAMUX_TRUST_KEY) and the private key
 * never leaves that process. The human's decisions are signed by the root directly; an agent lead's
 * by its own in-memory key, vouched for by a certificate the root signs after a one-time enrolment.
 * Everything here is a pure function of its arguments (node:crypto only), so the gate, the CLI and the
 * tests share one verifier. The formats are in docs/protocol.md ("Signed plan decisions").
 */
import { createHash, createHmac, createPublicKey, generateKeyPairSync, sign, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { z } from './zod.js';
import type { ProtocolRequest } from './types.js';
import { OPERATOR } from './operator.js';
import type { Certificate, DecisionClaim, PermissionClaim, ResponseSignature, SignedDecision, SignedPermission } from './signatures.js';

// The operator's name is defined once, in operator.ts; it is re-exported here for the signers' users.
export { OPERATOR };

// The signed formats (zod schemas) are signatures.ts's; re-exported for the signers' users.
export * from './signatures.js';

/** A lead's request for a certificate: its public key, authenticated with the one-time token. */
export const Enrolment = z.object({
  team: z.string(),
  run: z.string(),
  member: z.string(),
  publicKey: z.string(),
  mac: z.string(),
});
export type Enrolment = z.infer<typeof Enrolment>;

/** An Ed25519 keypair: the public key as text (`ed25519:<base64url>`), the private key as an opaque object. */
export interface KeyPair {
  publicKey: string;
  privateKey: KeyObject;
}

/** A fresh keypair, in memory only. */
export function newKeyPair(): KeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  return { publicKey: `ed25519:${jwk.x}`, privateKey };
}

/** The public key object of an `ed25519:…` text, or null when the text is not one. */
export function parsePublicKey(text: string): KeyObject | null {
  const m = /^ed25519:([A-Za-z0-9_-]{43})$/.exec(text.trim());
  if (!m) return null;
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: m[1]! }, format: 'jwk' });
  } catch {
    return null;
  }
}

/** A short fingerprint of a public key, for messages and member records. */
export function keyId(publicKey: string): string {
  return createHash('sha256').update(publicKey).digest('hex').slice(0, 16);
}

/** The sha256 of a plan text, as a claim carries it. */
export function planDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The exact bytes a decision signature covers: a tagged line of JSON with the fields in a fixed order. */
export function claimBytes(c: DecisionClaim): Buffer {
  const ordered = [c.team, c.run, c.requestId, c.member, c.approver, c.decision, c.planSha256];
  return Buffer.from(`teamux-plan-decision-v2\n${JSON.stringify(ordered)}`, 'utf8');
}

/** The sha256 of a tool call as a permission claim carries it: the tool name and its input, as JSON. */
export function callDigest(tool: string, input: unknown): string {
  return createHash('sha256').update(JSON.stringify([tool, input ?? null]), 'utf8').digest('hex');
}

/** The exact bytes a permission answer's signature covers. */
export function permissionClaimBytes(c: PermissionClaim): Buffer {
  const ordered = [c.team, c.run, c.requestId, c.member, c.approver, c.decision, c.callSha256, c.textSha256];
  return Buffer.from(`teamux-permission-decision-v1\n${JSON.stringify(ordered)}`, 'utf8');
}

/** The exact bytes a certificate signature covers. */
export function certificateBytes(c: Pick<Certificate, 'team' | 'run' | 'member' | 'publicKey'>): Buffer {
  return Buffer.from(`teamux-certificate-v2\n${JSON.stringify([c.team, c.run, c.member, c.publicKey])}`, 'utf8');
}

/** The exact bytes an enrolment MAC covers. */
export function enrolmentBytes(e: Pick<Enrolment, 'team' | 'run' | 'member' | 'publicKey'>): Buffer {
  return Buffer.from(`teamux-enrolment-v2\n${JSON.stringify([e.team, e.run, e.member, e.publicKey])}`, 'utf8');
}

/** Sign bytes with a private key (base64url). */
export function signBytes(privateKey: KeyObject, bytes: Buffer): string {
  return sign(null, bytes, privateKey).toString('base64url');
}

/** Whether `signature` over `bytes` verifies against the `ed25519:…` public key. */
export function verifyBytes(publicKey: string, bytes: Buffer, signature: string): boolean {
  const key = parsePublicKey(publicKey);
  if (!key || !/^[A-Za-z0-9_-]{86}$/.test(signature)) return false;
  try {
    return verify(null, bytes, key, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}

/** The enrolment a lead writes: its public key, authenticated with the token only the lead was given. */
export function makeEnrolment(token: string, fields: Omit<Enrolment, 'mac'>): Enrolment {
  return { ...fields, mac: createHmac('sha256', token).update(enrolmentBytes(fields)).digest('base64url') };
}

/** Whether an enrolment's MAC was made with `token` (constant time). */
export function enrolmentValid(token: string, e: Enrolment): boolean {
  const want = createHmac('sha256', token).update(enrolmentBytes(e)).digest();
  let got: Buffer;
  try {
    got = Buffer.from(e.mac, 'base64url');
  } catch {
    return false;
  }
  return got.length === want.length && timingSafeEqual(got, want);
}

/** The root signs a certificate for an enrolled lead key. */
export function issueCertificate(root: KeyObject, fields: Omit<Certificate, 'signature'>): Certificate {
  return { ...fields, signature: signBytes(root, certificateBytes(fields)) };
}

/** Whether a certificate was signed by the root key and names this team, run and member. */
export function certificateValid(trustKey: string, cert: Certificate, expect: { team: string; run: string; member: string }): boolean {
  return cert.team === expect.team && cert.run === expect.run && cert.member === expect.member && verifyBytes(trustKey, certificateBytes(cert), cert.signature);
}

/** Something that can sign plan decisions: the screen's root key, or an enrolled lead's key and certificate. */
export interface DecisionSigner {
  /** Who signs: OPERATOR for the screen, the lead's name for the lead. */
  readonly identity: string;
  /** Sign a claim (its approver must be this identity). */
  sign(claim: DecisionClaim): SignedDecision;
  /** Sign a permission answer: only the screen's root key can (the operator alone answers them). */
  signPermission?(claim: PermissionClaim): SignedPermission;
}

/** A signer for the human at the screen: the root key itself. */
export function rootSigner(root: KeyObject): DecisionSigner {
  return {
    identity: OPERATOR,
    sign: (claim) => ({ claim, signature: signBytes(root, claimBytes(claim)), certificate: null }),
    signPermission: (claim) => ({ claim, signature: signBytes(root, permissionClaimBytes(claim)) }),
  };
}

/** The claim the operator signs when answering permission request `req` (its payload holds the call). */
export function permissionClaimOf(team: string, req: ProtocolRequest, approve: boolean, text: string): PermissionClaim {
  const call = req.payload ?? {};
  return {
    kind: 'permission', team, run: req.run ?? '', requestId: req.id, member: req.from, approver: OPERATOR,
    decision: approve ? 'allow' : 'deny', callSha256: callDigest(String(call['tool'] ?? ''), call['input']), textSha256: planDigest(text),
  };
}

/** The plan decision a response carries, or null when it carries none (or a permission answer). */
export function planSignature(signed: ResponseSignature | null | undefined): SignedDecision | null {
  return signed && 'planSha256' in signed.claim ? (signed as SignedDecision) : null;
}

/** The tool call a member's hook asked permission for, as it knows it (not as the request file says). */
export interface PermissionTarget {
  requestId: string;
  member: string;
  tool: string;
  input: unknown;
  /** The request's one-line summary must still be what the call gives (the operator read it). */
  summary: string;
}

/**
 * Whether the answer on record for a permission request counts: signed by the screen's root key for
 * this team, run, request, member, exact tool call and feedback text, agreeing with the recorded
 * status. Returns the decision and the feedback, or why it does not count.
 */
export function checkPermissionAnswer(anchor: TrustAnchor | null, target: PermissionTarget, req: ProtocolRequest): { ok: true; allow: boolean; text: string } | { ok: false; why: string } {
  if (!anchor) return { ok: false, why: 'this process was not started by a teamux screen (no TEAMUX_TRUST_KEY), so it cannot check signatures' };
  if (req.status !== 'approved' && req.status !== 'rejected') return { ok: false, why: `the request is ${req.status}` };
  const r = req.response;
  const signed = r?.signed && !('planSha256' in r.signed.claim) ? (r.signed as SignedPermission) : null;
  if (!r || !signed) return { ok: false, why: 'unsigned' };
  const c = signed.claim;
  if (req.id !== target.requestId || req.from !== target.member || req.type !== 'permission') return { ok: false, why: 'not the request this hook opened' };
  if (req.run !== anchor.run || c.run !== anchor.run) return { ok: false, why: 'signed in another run' };
  if (c.team !== anchor.team) return { ok: false, why: `signed for team ${c.team}, not ${anchor.team}` };
  if (c.requestId !== target.requestId) return { ok: false, why: 'signed for another request' };
  if (c.member !== target.member) return { ok: false, why: `signed for ${c.member}'s request` };
  if (c.approver !== OPERATOR || r.by !== OPERATOR) return { ok: false, why: 'only the operator answers permission requests' };
  if (c.callSha256 !== callDigest(target.tool, target.input)) return { ok: false, why: 'signed for a different tool call' };
  if (req.body !== target.summary) return { ok: false, why: 'the request\'s summary was changed after it was opened' };
  if (c.textSha256 !== planDigest(r.text)) return { ok: false, why: 'signed for a different feedback text' };
  const allow = c.decision === 'allow';
  if (allow !== (req.status === 'approved') || allow !== r.approve) return { ok: false, why: 'the signed decision does not match the recorded status' };
  if (!verifyBytes(anchor.trustKey, permissionClaimBytes(c), signed.signature)) return { ok: false, why: 'bad signature' };
  return { ok: true, allow, text: r.text };
}

/** A signer for an enrolled lead: its own key, with the certificate that vouches for it. */
export function leadSigner(privateKey: KeyObject, certificate: Certificate): DecisionSigner {
  return { identity: certificate.member, sign: (claim) => ({ claim, signature: signBytes(privateKey, claimBytes(claim)), certificate }) };
}

/** What a member process knows at its start, and checks every decision against. */
export interface TrustAnchor {
  trustKey: string;
  team: string;
  run: string;
}

/** What a decision must be about to count. */
export interface DecisionTarget {
  requestId: string;
  member: string;
  approver: string;
  planText: string;
}

/** Why a signed decision does not count, or null when it does (and says approve/reject). */
export function checkDecision(anchor: TrustAnchor, target: DecisionTarget, signed: SignedDecision | null): { ok: true; decision: 'approve' | 'reject' } | { ok: false; why: string } {
  if (!signed) return { ok: false, why: 'unsigned' };
  const c = signed.claim;
  if (c.team !== anchor.team) return { ok: false, why: `signed for team ${c.team}, not ${anchor.team}` };
  if (c.run !== anchor.run) return { ok: false, why: 'signed in another run' };
  if (c.requestId !== target.requestId) return { ok: false, why: 'signed for another request' };
  if (c.member !== target.member) return { ok: false, why: `signed for ${c.member}'s plan` };
  if (c.approver !== target.approver) return { ok: false, why: `signed by ${c.approver}, but the approver is ${target.approver}` };
  if (c.planSha256 !== planDigest(target.planText)) return { ok: false, why: 'signed for a different plan text' };
  let key = anchor.trustKey;
  if (target.approver !== OPERATOR) {
    if (!signed.certificate) return { ok: false, why: `no certificate for ${target.approver}'s key` };
    if (!certificateValid(anchor.trustKey, signed.certificate, { team: anchor.team, run: anchor.run, member: target.approver })) {
      return { ok: false, why: `${target.approver}'s certificate is not signed by this screen's key` };
    }
    key = signed.certificate.publicKey;
  } else if (signed.certificate) {
    return { ok: false, why: 'the operator signs without a certificate' };
  }
  if (!verifyBytes(key, claimBytes(c), signed.signature)) return { ok: false, why: 'bad signature' };
  return { ok: true, decision: c.decision };
}

/** Whether the answer on record for a plan request counts: signed for it by `approver`, under `anchor`. */
export function answerTrusted(anchor: TrustAnchor | null, approver: string, req: ProtocolRequest): boolean {
  if (!anchor || !req.response || req.run !== anchor.run) return false;
  const r = checkDecision(anchor, { requestId: req.id, member: req.from, approver, planText: req.body }, planSignature(req.response.signed));
  return r.ok && (r.decision === 'approve') === (req.status === 'approved') && req.response.approve === (req.status === 'approved');
}

/** Why the answer on record does not count, for messages (null when it counts). */
export function whyUntrusted(anchor: TrustAnchor | null, approver: string, req: ProtocolRequest): string | null {
  if (!anchor) return 'this process was not started by a teamux screen (no TEAMUX_TRUST_KEY), so it cannot check signatures';
  if (!req.response) return 'no answer';
  if (answerTrusted(anchor, approver, req)) return null;
  const r = checkDecision(anchor, { requestId: req.id, member: req.from, approver, planText: req.body }, planSignature(req.response.signed));
  return r.ok ? 'the signed decision does not match the recorded status' : r.why;
}
