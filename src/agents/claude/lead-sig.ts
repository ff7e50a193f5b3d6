/**
 * Claude Code's `lead_sig`, verified. Found in the 2.1.328 binary (see docs/claude-native-teams.md):
 * for each pane teammate the lead makes an ed25519 key pair and passes the public half on the
 * teammate's command line as `--lead-verify-key <ms>.<base64url SPKI DER>`; every message the lead
 * writes into that teammate's inbox carries `lead_sig`, the base64url ed25519 signature of the UTF-8
 * JSON array ["claude-team-lead-entry-v1", msg_id, from, timestamp, text, summary ?? null,
 * color ?? null, from_plugin ?? null]. Pure functions of those values (node's crypto only).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { LeadSigStatus, LeadSignedEntry } from '../../store/claude-team-files.js';

const DOMAIN = 'claude-team-lead-entry-v1';
const KEY = /^(\d+)\.([A-Za-z0-9_-]+)$/;

/** The fields of an inbox entry the signature covers, as they are in the file. */
export type LeadSigned = Omit<LeadSignedEntry, 'leadSig' | 'summary' | 'color' | 'fromPlugin'> & Partial<Pick<LeadSignedEntry, 'summary' | 'color' | 'fromPlugin'>>;

/** The ed25519 public key of a `--lead-verify-key` value, or null when it is not one. */
export function parseLeadVerifyKey(value: string): KeyObject | null {
  const m = KEY.exec(value);
  if (!m) return null;
  try {
    const key = createPublicKey({ key: Buffer.from(m[2]!, 'base64url'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ed25519' ? key : null;
  } catch {
    return null;
  }
}

/** The bytes Claude Code signs for an inbox entry. */
export function leadSignedBytes(e: LeadSigned): Buffer {
  return Buffer.from(JSON.stringify([DOMAIN, e.msgId, e.from, e.timestamp, e.text, e.summary ?? null, e.color ?? null, e.fromPlugin ?? null]), 'utf8');
}

/** A message's lead_sig status, checked with the recipient's verify key (null: none known, so unverified). */
export function leadSigOf(signing: LeadSignedEntry | null, key: KeyObject | null): LeadSigStatus {
  return signing ? checkLeadSig(signing, signing.leadSig, key) : 'none';
}

/** Check an entry's lead_sig with the recipient's verify key (null: no key known, so unverified). */
export function checkLeadSig(e: LeadSigned, sig: unknown, key: KeyObject | null): LeadSigStatus {
  if (sig === undefined || sig === null) return 'none';
  if (key === null) return 'unverified';
  if (typeof sig !== 'string') return 'forged';
  try {
    return verify(null, leadSignedBytes(e), key, Buffer.from(sig, 'base64url')) ? 'verified' : 'forged';
  } catch {
    return 'forged';
  }
}
