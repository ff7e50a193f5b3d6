/**
 * Inboxes on JetStream: one stream per team, a subject per member; sending is one publish with the
 * message id as its de-duplication id, so a retried send is stored once. Each reader's cursor is a
 * durable consumer on the member's subject: `unread()` reads the messages past its acknowledged floor
 * (moving nothing, so a reader that crashes gets them again), and `commit()` pulls them through the
 * durable consumer and acknowledges each, waiting for the server's confirmation.
 */
import { AckPolicy, DeliverPolicy, JetStreamApiCodes, JetStreamApiError, type ConsumerInfo, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { Message } from '../../protocol/types.js';
import type { InboxStore } from '../backend.js';
import type { FileProblem } from '../fsx.js';
import { composeMessage, messageLine, parseMessage, type Cursor, type Outgoing, type Unread } from '../inbox.js';
import { backoff, retrying } from './kv.js';
import { cursorConsumer, inboxStream, inboxSubject } from './names.js';

/** A delivered message not acknowledged within this is delivered again (a reader died mid-commit). */
const ACK_WAIT_MS = 10_000;
/** How long a cursor this process made may read as "not found" (a restarted server restoring it) before it is made again. */
const CURSOR_RESTORE_MS = 15_000;
/** How often a waiting reader looks again even without a wake-up (a reconnect can drop one). */
const RECHECK_MS = 2_000;

/** The inboxes of one team on a NATS server. */
export class NatsMailbox implements InboxStore {
  private readonly ready = new Set<string>();

  constructor(private readonly nc: NatsConnection, private readonly js: JetStreamClient, private readonly jsm: JetStreamManager, private readonly team: string) {}

  compose(out: Outgoing): Message {
    return composeMessage(out);
  }

  async deliver(msg: Message): Promise<void> {
    const line = messageLine(msg);
    // The same msgID on a retry: JetStream stores it once (within the stream's duplicate window).
    await retrying(() => this.js.publish(inboxSubject(this.team, msg.to), line, { msgID: msg.id, timeout: 5_000 }));
  }

  /** The durable consumer that is `reader`'s cursor in `member`'s inbox, created on first use. */
  private async cursorOf(member: string, reader: string): Promise<string> {
    const name = cursorConsumer(member, reader);
    if (!this.ready.has(name)) {
      await retrying(() => this.jsm.consumers.add(inboxStream(this.team), {
        durable_name: name, filter_subject: inboxSubject(this.team, member), ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All, ack_wait: nanos(ACK_WAIT_MS), max_ack_pending: 100_000,
      }));
      this.ready.add(name);
    }
    return name;
  }

  /**
   * The cursor consumer's info. A restarted server answers again a moment before it has brought its
   * consumers back from disk, and meanwhile says "consumer not found" for one that exists: that is
   * retried for CURSOR_RESTORE_MS; a cursor still missing then (the server lost it) is made again, once.
   */
  private async cursorInfo(member: string, reader: string): Promise<ConsumerInfo> {
    const until = Date.now() + CURSOR_RESTORE_MS;
    let remade = false;
    for (let attempt = 0; ; attempt++) {
      const name = await this.cursorOf(member, reader);
      try {
        return await retrying(() => this.jsm.consumers.info(inboxStream(this.team), name));
      } catch (err) {
        if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.ConsumerNotFound) || remade) throw err;
        if (Date.now() > until) {
          this.ready.delete(name);
          remade = true;
        } else await backoff(attempt);
      }
    }
  }

  /** The acknowledged floor of a cursor and how many messages lie past it. */
  private async position(member: string, reader: string): Promise<{ floor: number; waiting: number }> {
    const info = await this.cursorInfo(member, reader);
    return { floor: info.ack_floor.stream_seq, waiting: info.num_pending + info.num_ack_pending };
  }

  async unread(member: string, reader: string = member): Promise<Unread> {
    const { floor, waiting } = await this.position(member, reader);
    if (waiting === 0) return { messages: [], next: { offset: floor, seen: [] }, problems: [] };
    return retrying(async () => {
      const messages: Message[] = [];
      const problems: FileProblem[] = [];
      let last = floor;
      const oc = await this.js.consumers.get(inboxStream(this.team), {
        filter_subjects: inboxSubject(this.team, member), deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: floor + 1,
      });
      try {
        let left = waiting;
        while (left > 0) {
          const batch = await oc.fetch({ max_messages: Math.min(left, 500), expires: 2_000 });
          let got = 0;
          for await (const m of batch) {
            got++;
            last = Math.max(last, m.seq);
            const parsed = parseMessage(m.string());
            if (parsed.ok) messages.push(parsed.msg);
            else problems.push({ path: `${inboxStream(this.team)} seq ${m.seq}`, message: parsed.message });
          }
          if (got === 0) break;
          left -= got;
        }
      } finally {
        await oc.delete().catch(() => {});
      }
      return { messages, next: { offset: last, seen: messages.map((m) => m.id) }, problems };
    });
  }

  async commit(member: string, reader: string, next: Cursor): Promise<void> {
    const name = await this.cursorOf(member, reader);
    const stream = inboxStream(this.team);
    const deadline = Date.now() + ACK_WAIT_MS * 3 + 30_000;
    for (let attempt = 0; ; attempt++) {
      const info = await this.cursorInfo(member, reader);
      if (info.ack_floor.stream_seq >= next.offset) return;
      if (Date.now() > deadline) throw new Error(`could not acknowledge ${member}'s messages up to ${next.offset} for ${reader}`);
      await retrying(async () => {
        const consumer = await this.js.consumers.get(stream, name);
        const batch = await consumer.fetch({ max_messages: Math.max(1, Math.min(500, next.seen.length || 1)), expires: 1_000 });
        for await (const m of batch) {
          // Past what the reader has handled: hand it back at once, for the next read.
          if (m.seq > next.offset) m.nak();
          else await m.ackAck();
        }
      });
      if (attempt > 0) await backoff(attempt);
    }
  }

  async read(member: string, reader: string = member): Promise<Unread> {
    const r = await this.unread(member, reader);
    if (r.messages.length > 0 || r.problems.length > 0) await this.commit(member, reader, r.next);
    return r;
  }

  async waitForUnread(member: string, reader: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    // Subscribed before the first look, so a message that lands in between still wakes us.
    const sub = this.nc.subscribe(inboxSubject(this.team, member));
    let wake: (() => void) | null = null;
    const poke = (): void => wake?.();
    void (async () => {
      for await (const _ of sub) poke();
    })();
    signal?.addEventListener('abort', poke);
    try {
      for (;;) {
        if ((await this.position(member, reader)).waiting > 0) return true;
        const left = deadline - Date.now();
        if (left <= 0 || signal?.aborted) return false;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, RECHECK_MS));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    } finally {
      sub.unsubscribe();
      signal?.removeEventListener('abort', poke);
    }
  }
}
