/**
 * Requests on JetStream KV: one key per request (`request.<id>`) in the team's state bucket. Answering,
 * withdrawing and expiring run the pure state machine of protocol/requests on what was read and write
 * at that revision, so of two racing answers exactly one is stored.
 */
import type { KV } from '@nats-io/kv';
import { expire, resolve as resolveRequest, withdraw as withdrawRequest, type ResponseInput } from '../../protocol/requests.js';
import { accept, refuse, ProtocolRequest, REQUEST_VERSION, type Outcome, type RequestType } from '../../protocol/types.js';
import type { RequestStore } from '../backend.js';
import type { FileProblem } from '../fsx.js';
import { newRequestId } from '../requests.js';
import { casWrite, entryJson, getLive, listKeys } from './kv.js';
import { keys } from './names.js';

/** The requests of one team in its KV bucket. */
export class NatsRequestBook implements RequestStore {
  constructor(private readonly kv: KV) {}

  async create(type: RequestType, from: string, to: string, body: string, run: string | null, payload?: Record<string, unknown>): Promise<ProtocolRequest> {
    const req: ProtocolRequest = {
      version: REQUEST_VERSION, id: newRequestId(), type, run, from, to, status: 'pending', body,
      createdAt: new Date().toISOString(), resolvedAt: null, response: null, expiredReason: null,
      ...(payload !== undefined ? { payload } : {}),
    };
    if (!(await casWrite(this.kv, keys.request(req.id), JSON.stringify(req), 0))) throw new Error(`request id ${req.id} is taken`);
    return req;
  }

  /** A request with the revision it was read at. */
  private async read(id: string): Promise<{ value: Outcome<ProtocolRequest>; revision: number }> {
    if (!/^req-[a-z0-9-]{4,64}$/.test(id)) return { value: refuse('not_found', `"${id}" is not a request id (they look like req-…)`), revision: 0 };
    const e = await getLive(this.kv, keys.request(id));
    if (!e) return { value: refuse('not_found', `request ${id} does not exist`), revision: 0 };
    const json = entryJson(e);
    if (!json.ok) return { value: refuse('not_found', `request ${id} cannot be read: ${json.message}`), revision: e.revision };
    const parsed = ProtocolRequest.safeParse(json.value);
    if (!parsed.success) return { value: refuse('not_found', `request ${id} cannot be read: ${parsed.error.issues[0]!.message}`), revision: e.revision };
    return { value: accept(parsed.data), revision: e.revision };
  }

  async get(id: string): Promise<Outcome<ProtocolRequest>> {
    return (await this.read(id)).value;
  }

  async list(): Promise<{ requests: ProtocolRequest[]; problems: FileProblem[] }> {
    const requests: ProtocolRequest[] = [];
    const problems: FileProblem[] = [];
    for (const key of await listKeys(this.kv, keys.allRequests)) {
      const id = key.slice('request.'.length);
      const r = await this.get(id);
      if (r.ok) requests.push(r.value);
      else if (r.message !== `request ${id} does not exist`) problems.push({ path: key, message: r.message });
    }
    requests.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    return { requests, problems };
  }

  async withdraw(id: string, by: string, reason: string): Promise<Outcome<ProtocolRequest>> {
    return this.change(id, (q) => withdrawRequest(q, by, reason, new Date().toISOString()));
  }

  async answer(id: string, response: ResponseInput): Promise<Outcome<ProtocolRequest>> {
    return this.change(id, (q) => resolveRequest(q, response, new Date().toISOString()));
  }

  async expireEarlierRuns(run: string): Promise<ProtocolRequest[]> {
    const closed: ProtocolRequest[] = [];
    for (const old of (await this.list()).requests) {
      if (old.status !== 'pending' || old.run === run) continue;
      const r = await this.change(old.id, (q) => {
        const next = expire(q, run, new Date().toISOString());
        return next ? accept(next) : refuse('not_pending', 'already closed');
      });
      if (r.ok) closed.push(r.value);
    }
    return closed;
  }

  /** Read, decide, write at the revision read; decide again on a conflict. */
  private async change(id: string, fn: (q: ProtocolRequest) => Outcome<ProtocolRequest>): Promise<Outcome<ProtocolRequest>> {
    for (;;) {
      const { value, revision } = await this.read(id);
      if (!value.ok) return value;
      const next = fn(value.value);
      if (!next.ok) return next;
      if (await casWrite(this.kv, keys.request(id), JSON.stringify(next.value), revision)) return next;
    }
  }
}
