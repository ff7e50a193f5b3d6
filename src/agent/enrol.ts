/**
 * A lead agent's enrolment: when its screen has a one-time token for it (fetched from the screen's
 * enrolment socket, TEAMUX_ENROL_SOCKET, which hands it only to a process in the lead's pane), the lead
 * makes its own Ed25519 keypair in memory, writes an enrolment with its public key MAC'd under the
 * token, and waits (bounded) for the certificate the screen signs with its root key. It checks the
 * certificate against the trust key it read at start before it trusts it. Any failure is said loudly,
 * in the pane and in teamux.log: the lead then cannot approve or reject plans.
 */
import type { DecisionSigner, TrustAnchor } from '../protocol/trust.js';
import type { TeamStore } from '../store/team.js';
import { enrolKey, enrolTokenOf } from '../store/trust.js';
import type { Pane } from './pane.js';

/** How long the lead waits for its certificate before its first model turn. */
export const ENROL_TIMEOUT_MS = 30_000;

/** Enrol the lead's fresh key and return its signer, or null (and say why) when that fails. */
export async function enrolLead(store: TeamStore, pane: Pane, member: string, anchor: TrustAnchor | null, env: NodeJS.ProcessEnv, timeoutMs = ENROL_TIMEOUT_MS): Promise<DecisionSigner | null> {
  const token = await enrolTokenOf(env, member);
  if (!token) return null;
  if (anchor) pane.line('enrolling this lead\'s signing key with the teamux screen…', 'dim');
  const enrolled = 'why' in token ? token : await enrolKey(store.trust, anchor, member, token.token, timeoutMs);
  if ('why' in enrolled) {
    const text = `plan approvals disabled: ${enrolled.why}`;
    pane.line(text, 'red');
    store.log.error(`${member}: ${text}`);
    return null;
  }
  store.log.info(`${member}: signing key enrolled for run ${anchor!.run}`);
  return enrolled.signer;
}
