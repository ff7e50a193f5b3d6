/**
 * The event log on JetStream: one stream per team, one message per event, each published with its
 * own de-duplication id so a retry through a reconnect stores it once. Reading takes the stream from
 * a sequence with an ordered consumer; the sidebar's feed is an ordered consumer that keeps running
 * and buffers what arrives until readNew() takes it.
 */
import { randomUUID } from 'node:crypto';
import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { EventType, TeamEvent } from '../../protocol/types.js';
import type { EventFeed, EventStore } from '../backend.js';
import type { FileProblem } from '../fsx.js';
import { retrying } from './kv.js';
import { eventStream, eventSubject } from './names.js';

/** How many recent events a new feed starts with. */
export const FEED_START_EVENTS = 500;

/** The team's event stream. */
export class NatsEventLog implements EventStore {
  constructor(private readonly js: JetStreamClient, private readonly jsm: JetStreamManager, private readonly team: string) {}

  async record(type: EventType, fields: Record<string, unknown>): Promise<void> {
    const event: TeamEvent = { time: new Date().toISOString(), type, ...fields };
    const id = randomUUID();
    await retrying(() => this.js.publish(eventSubject(this.team), JSON.stringify(event), { msgID: id, timeout: 5_000 }));
  }

  async read(limit?: number): Promise<{ events: TeamEvent[]; problems: FileProblem[] }> {
    const { state } = await retrying(() => this.jsm.streams.info(eventStream(this.team)));
    if (state.messages === 0) return { events: [], problems: [] };
    const from = limit === undefined ? state.first_seq : Math.max(state.first_seq, state.last_seq - limit + 1);
    return retrying(async () => {
      const out: { events: TeamEvent[]; problems: FileProblem[] } = { events: [], problems: [] };
      const oc = await this.js.consumers.get(eventStream(this.team), { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from });
      let seq = from - 1;
      while (seq < state.last_seq) {
        const batch = await oc.fetch({ max_messages: Math.min(1_000, state.last_seq - seq), expires: 2_000 });
        let got = 0;
        for await (const m of batch) {
          got++;
          seq = m.seq;
          parseEvent(m.string(), `${eventStream(this.team)} seq ${m.seq}`, out);
        }
        if (got === 0) break;
      }
      await oc.delete().catch(() => {});
      return out;
    });
  }

  /** Follow the stream from its recent tail; the feed keeps following through reconnects. */
  feed(): EventFeed {
    return new NatsEventFeed(this.js, this.jsm, this.team);
  }
}

/** A running ordered consumer on the event stream, buffering what arrives. */
export class NatsEventFeed implements EventFeed {
  private buffer: TeamEvent[] = [];
  private problems: FileProblem[] = [];
  private messages: ConsumerMessages | null = null;
  private closed = false;
  private readonly started: Promise<void>;
  private readonly listeners: Array<() => void> = [];

  constructor(private readonly js: JetStreamClient, private readonly jsm: JetStreamManager, private readonly team: string) {
    this.started = this.start().catch((err: Error) => {
      this.problems.push({ path: eventStream(team), message: `cannot follow events: ${err.message}` });
    });
  }

  private async start(): Promise<void> {
    const { state } = await retrying(() => this.jsm.streams.info(eventStream(this.team)));
    const from = Math.max(1, state.first_seq, state.last_seq - FEED_START_EVENTS + 1);
    const oc = await this.js.consumers.get(eventStream(this.team), { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from });
    if (this.closed) return;
    this.messages = await oc.consume();
    void (async () => {
      for await (const m of this.messages!) {
        parseEvent(m.string(), `${eventStream(this.team)} seq ${m.seq}`, { events: this.buffer, problems: this.problems });
        for (const l of this.listeners) l();
      }
    })().catch(() => {});
  }

  async readNew(): Promise<{ events: TeamEvent[]; problems: FileProblem[] }> {
    await this.started;
    const out = { events: this.buffer, problems: this.problems };
    this.buffer = [];
    this.problems = [];
    return out;
  }

  onArrival(listener: () => void): void {
    this.listeners.push(listener);
  }

  close(): void {
    this.closed = true;
    this.listeners.length = 0;
    void this.messages?.close();
  }
}

function parseEvent(text: string, where: string, out: { events: TeamEvent[]; problems: FileProblem[] }): void {
  try {
    const ev = JSON.parse(text) as TeamEvent;
    if (typeof ev !== 'object' || ev === null || typeof ev.type !== 'string') throw new Error('not an event object');
    out.events.push(ev);
  } catch (err) {
    out.problems.push({ path: where, message: `bad event: ${(err as Error).message}` });
  }
}
