/**
 * Requests (shutdown, plan approval): one JSON file per request under `requests/`, each belonging to
 * the run it was opened in. Opening one writes the file and delivers the matching *_request message
 * carrying its request_id; answering (and expiring) runs the pure state machine under the request's
 * lock, so of two racing answers exactly one wins.
 */
import { randomBytes } from 'node:crypto';
import { expire, resolve as resolveRequest, withdraw as withdrawRequest, type ResponseInput } from '../protocol/requests.js';
import { accept, refuse, ProtocolRequest, REQUEST_VERSION, type Outcome, type RequestType } from '../protocol/types.js';
import { ensureDir, listFolder, parseJson, readText, writeJson, type FileProblem } from './fsx.js';
import { withLock } from './lock.js';
import type { RequestStore } from './backend.js';
import type { TeamPaths } from './paths.js';

/** A new request id: time-ordered, unguessable enough not to collide across processes. */
export function newRequestId(): string {
  return `req-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** The request files of one team folder. */
export class RequestBook implements RequestStore {
  constructor(private readonly paths: TeamPaths) {}

  /** Write a new pending request of run `run` (a permission request carries its tool call as payload). */
  async create(type: RequestType, from: string, to: string, body: string, run: string | null, payload?: Record<string, unknown>): Promise<ProtocolRequest> {
    await ensureDir(this.paths.requests);
    const req: ProtocolRequest = {
      version: REQUEST_VERSION, id: newRequestId(), type, run, from, to, status: 'pending', body,
      createdAt: new Date().toISOString(), resolvedAt: null, response: null, expiredReason: null,
      ...(payload !== undefined ? { payload } : {}),
    };
    await writeJson(this.paths.request(req.id), req);
    return req;
  }

  /** Read one request. */
  async get(id: string): Promise<Outcome<ProtocolRequest>> {
    if (!/^req-[a-z0-9-]{4,64}$/.test(id)) return refuse('not_found', `"${id}" is not a request id (they look like req-…)`);
    const file = this.paths.request(id);
    const text = await readText(file, 'record');
    if (text === undefined) return refuse('not_found', `request ${id} does not exist`);
    const json = parseJson(file, text);
    if (!json.ok) return refuse('not_found', `request ${id} cannot be read: ${json.problem.message}`);
    const parsed = ProtocolRequest.safeParse(json.value);
    if (!parsed.success) return refuse('not_found', `request ${id} cannot be read: ${parsed.error.issues[0]!.message}`);
    return accept(parsed.data);
  }

  /** Every request, oldest first; bad files are reported and skipped. */
  async list(): Promise<{ requests: ProtocolRequest[]; problems: FileProblem[] }> {
    const names = await listFolder(this.paths.requests);
    const requests: ProtocolRequest[] = [];
    const problems: FileProblem[] = [];
    for (const n of names.filter((n) => n.startsWith('req-') && n.endsWith('.json'))) {
      const r = await this.get(n.slice(0, -5));
      if (r.ok) requests.push(r.value);
      else problems.push({ path: this.paths.request(n.slice(0, -5)), message: r.message });
    }
    requests.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    return { requests, problems };
  }

  /** The asker withdraws a pending request (it stopped waiting); refused once it was answered. */
  async withdraw(id: string, by: string, reason: string): Promise<Outcome<ProtocolRequest>> {
    const file = this.paths.request(id);
    return withLock(file, async () => {
      const current = await this.get(id);
      if (!current.ok) return current;
      const next = withdrawRequest(current.value, by, reason, new Date().toISOString());
      if (next.ok) await writeJson(file, next.value);
      return next;
    });
  }

  /** Answer a request; a duplicate or mismatched answer changes nothing and says why. */
  async answer(id: string, response: ResponseInput): Promise<Outcome<ProtocolRequest>> {
    const file = this.paths.request(id);
    const found = await this.get(id);
    if (!found.ok) return found;
    return withLock(file, async () => {
      const current = await this.get(id);
      if (!current.ok) return current;
      const next = resolveRequest(current.value, response, new Date().toISOString());
      if (next.ok) await writeJson(file, next.value);
      return next;
    });
  }

  /** Close every pending request of an earlier run as expired; returns those it closed. */
  async expireEarlierRuns(run: string): Promise<ProtocolRequest[]> {
    const closed: ProtocolRequest[] = [];
    for (const old of (await this.list()).requests) {
      if (old.status !== 'pending' || old.run === run) continue;
      const file = this.paths.request(old.id);
      const done = await withLock(file, async () => {
        const current = await this.get(old.id);
        const next = current.ok ? expire(current.value, run, new Date().toISOString()) : null;
        if (next) await writeJson(file, next);
        return next;
      });
      if (done) closed.push(done);
    }
    return closed;
  }
}
