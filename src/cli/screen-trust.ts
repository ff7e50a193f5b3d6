/**
 * A screen's trust for one run (`teamux start` and `teamux attach`): the root keypair, what members get
 * in their environment (the public key, the run, the enrolment socket's path: no secret), and the
 * enrolment socket that hands the lead its one-time token.
 */
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { NormalizedLayout } from '../config/index.js';
import { EnrolSocket } from '../app/enrol-socket.js';
import type { Pane } from '../app/pane.js';
import { shimSocketPath } from '../agents/claude/tmux-shim/socket.js';
import { ensureSocketFolder } from '../store/claude-teams.js';
import type { TeamPaths } from '../store/paths.js';
import type { TeamStore } from '../store/team.js';
import { TrustAuthority } from '../store/trust.js';

/** A run's trust as the screen holds it: the authority, what members get in env, and its enrolment socket. */
export interface ScreenTrust {
  authority: TrustAuthority;
  env: Record<string, string>;
  memberEnv: Record<string, Record<string, string>>;
  restartEnv: Record<string, () => Record<string, string>>;
  /** Tell the enrolment socket where the lead's pane is (the multiplexer's panes). */
  seePanes(panes: () => readonly Pane[]): void;
  /** Stop answering enrolments; close the socket. */
  dispose(): void;
}

/**
 * This screen's trust root for the run: a keypair in memory whose public key (and the run) every
 * member gets in env, and which signs the operator's plan decisions through the store. A lead (agent
 * or Claude Code) that approves plans gets the path of the enrolment socket in its env (not a secret):
 * its one-time token is handed there, to a process in its pane only (app/enrol-socket.ts).
 */
export async function trustFor(store: TeamStore, layout: NormalizedLayout, run: string): Promise<ScreenTrust> {
  const authority = new TrustAuthority(store.paths, layout.name, run, store.log);
  store.decisionSigner = authority.signer();
  await authority.serve();
  const memberEnv: Record<string, Record<string, string>> = {};
  const restartEnv: Record<string, () => Record<string, string>> = {};
  let panes: () => readonly Pane[] = () => [];
  let enrol: EnrolSocket | null = null;
  // A Claude Code lead's env reaches the `teamux mcp` server it starts, which enrols (src/mcp/trust.ts).
  if (layout.planApprover === 'lead' && (layout.lead.agent || layout.lead.claude)) {
    const lead = layout.lead.name;
    const socket = enrolSocketPath(store.paths);
    await ensureSocketFolder(socket);
    enrol = new EnrolSocket({ socket, authority, lead, log: store.log, panes: () => panes().flatMap((p) => (p.pid === undefined ? [] : [{ id: p.name, pid: p.pid }])) });
    try {
      await enrol.listen();
    } catch (err) {
      authority.dispose();
      throw err;
    }
    authority.issueToken(lead);
    memberEnv[lead] = { TEAMUX_ENROL_SOCKET: socket };
    // A lead restarted by the screen (C-a R) enrols again with a token of its own; the old one is void.
    restartEnv[lead] = () => {
      authority.issueToken(lead);
      return { TEAMUX_ENROL_SOCKET: socket };
    };
  }
  return {
    authority, env: { TEAMUX_TRUST_KEY: authority.publicKey, TEAMUX_RUN: run }, memberEnv, restartEnv,
    seePanes: (fn) => { panes = fn; },
    dispose: () => {
      enrol?.dispose();
      authority.dispose();
    },
  };
}

/** Where the screen's enrolment socket listens: `trust/enrol.sock`, or a short path when that is too long. */
export function enrolSocketPath(paths: TeamPaths): string {
  return shimSocketPath(path.join(paths.trust, 'enrol.sock'), paths.dir, tmpdir(), process.getuid?.() ?? 0, 'enrol');
}
