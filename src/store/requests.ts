/**
 * Requests (shutdown, plan approval): one JSON file per request under `requests/`. Opening one writes
 * the file and delivers the matching *_request message carrying its request_id; answering runs the
 * pure state machine under the request's lock, so of two racing answers exactly one wins.
 */
import { randomBytes } from 'node:crypto';
import { resolve as resolveRequest, type ResponseInput } from '../protocol/requests.js';
import { accept, refuse, ProtocolRequest, type Outcome, type RequestType } from '../protocol/types.js';
import { ensureDir, listFolder, parseJson, readText, writeJson, type FileProblem } from './fsx.js';
import { withLock } from './lock.js';
import type { TeamPaths } from './paths.js';

/** A new request id: time-ordered, unguessable enough not to collide across processes. */
export function newRequestId(): string {
  return `req-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** The request files of one team folder. */
export class RequestBook {
  constructor(private readonly paths: TeamPaths) {}

  /** Write a new pending request. */
  async create(type: RequestType, from: string, to: string, body: string): Promise<ProtocolRequest> {
    await ensureDir(this.paths.requests);
    const req: ProtocolRequest = {
      version: 1, id: newRequestId(), type, from, to, status: 'pending', body,
      createdAt: new Date().toISOString(), resolvedAt: null, response: null,
    };
    await writeJson(this.paths.request(req.id), req);
    return req;
  }

  /** Read one request. */
  async get(id: string): Promise<Outcome<ProtocolRequest>> {
    if (!/^req-[a-z0-9-]{4,64}$/.test(id)) return refuse('not_found', `"${id}" is not a request id (they look like req-…)`);
    const file = this.paths.request(id);
    const text = await readText(file);
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
}
