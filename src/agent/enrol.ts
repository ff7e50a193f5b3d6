/**
 * A lead agent's enrolment: when its screen gave it a one-time token (TEAMUX_ENROL_TOKEN), the lead
 * makes its own Ed25519 keypair in memory, writes an enrolment with its public key MAC'd under the
 * token, and waits (bounded) for the certificate the screen signs with its root key. It checks the
 * certificate against the trust key it read at start before it trusts it. Any failure is said loudly,
 * in the pane and in teamux.log: the lead then cannot approve or reject plans.
 */
import { certificateValid, leadSigner, makeEnrolment, newKeyPair, type DecisionSigner, type TrustAnchor } from '../protocol/trust.js';
import type { TeamStore } from '../store/team.js';
import type { Pane } from './pane.js';

/** How long the lead waits for its certificate before its first model turn. */
export const ENROL_TIMEOUT_MS = 30_000;

/** Enrol the lead's fresh key and return its signer, or null (and say why) when that fails. */
export async function enrolLead(store: TeamStore, pane: Pane, member: string, anchor: TrustAnchor | null, token: string | undefined, timeoutMs = ENROL_TIMEOUT_MS): Promise<DecisionSigner | null> {
  if (!token) return null;
  const loud = (why: string): null => {
    const text = `plan approvals disabled: ${why}`;
    pane.line(text, 'red');
    store.log.error(`${member}: ${text}`);
    return null;
  };
  if (!anchor) return loud('TEAMUX_ENROL_TOKEN is set but TEAMUX_TRUST_KEY or the run is missing');
  const keys = newKeyPair();
  const id = await store.trust.submit(makeEnrolment(token, { team: anchor.team, run: anchor.run, member, publicKey: keys.publicKey }));
  pane.line('enrolling this lead\'s signing key with the teamux screen…', 'dim');
  const answer = await store.trust.waitForAnswer(id, timeoutMs);
  if (!answer) return loud(`the teamux screen did not answer the enrolment within ${Math.round(timeoutMs / 1000)} s`);
  if ('refused' in answer) return loud(`the teamux screen refused the enrolment: ${answer.refused}`);
  const cert = answer.certificate;
  if (cert.publicKey !== keys.publicKey || !certificateValid(anchor.trustKey, cert, { team: anchor.team, run: anchor.run, member })) {
    return loud('the certificate is not signed by this screen\'s key for this key (a forged answer?)');
  }
  store.log.info(`${member}: signing key enrolled for run ${anchor.run}`);
  return leadSigner(keys.privateKey, cert);
}
