/**
 * Connecting to a NATS server for the team store: the store URL (from the layout's `store:`, --store
 * or TEAMUX_STORE), credentials from the environment or files (user/password, token, nkey seed, creds
 * file) and TLS. Credentials live only in this process's memory: URLs are shown without them, and
 * a URL that carries them is refused where it would be written to a team file. Every failure before
 * work starts (unreachable, refused credentials, no JetStream) is a value with a message and a hint.
 */
import { readFileSync } from 'node:fs';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  connect, credsAuthenticator, nkeyAuthenticator, tokenAuthenticator, usernamePasswordAuthenticator,
  type Authenticator, type NatsConnection, type NodeConnectionOptions,
} from '@nats-io/transport-node';

/** A parsed store location. */
export interface StoreUrl {
  /** Server URLs without credentials (what messages and team files may show). */
  servers: string[];
  tls: boolean;
  /** user/password given inside the URL (kept in memory only). */
  urlUser?: { user: string; pass: string };
}

/** Why connecting failed, for the user. */
export interface ConnectProblem {
  message: string;
  hint: string;
}

const START_HINT = 'start one with `nats-server -js -a 127.0.0.1 -p 4222 -sd ~/.teamux-nats`, or check --store / TEAMUX_STORE';

/** True for a store value that selects NATS (nats:// or tls://). */
export function isNatsUrl(value: string): boolean {
  return /^(nats|tls):\/\//i.test(value.trim());
}

/** Parse `nats://host:port[,nats://host2:port]` (or tls://); null with a reason when it is not one. */
export function parseStoreUrl(value: string): { ok: true; url: StoreUrl } | { ok: false; problem: ConnectProblem } {
  const servers: string[] = [];
  let tls = false;
  let urlUser: StoreUrl['urlUser'];
  for (const part of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    let u: URL;
    try {
      u = new URL(part);
    } catch {
      return { ok: false, problem: { message: `store "${redactUrl(part)}" is not a URL`, hint: 'write it as nats://HOST:4222 (or tls://HOST:4222)' } };
    }
    if (u.protocol !== 'nats:' && u.protocol !== 'tls:') return { ok: false, problem: { message: `store "${redactUrl(part)}": unknown scheme ${u.protocol}`, hint: 'use nats://HOST:4222 or tls://HOST:4222' } };
    if (!u.hostname) return { ok: false, problem: { message: `store "${redactUrl(part)}" names no host`, hint: 'write it as nats://HOST:4222' } };
    if (u.protocol === 'tls:') tls = true;
    if (u.username) urlUser = { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) };
    servers.push(`${u.hostname.includes(':') ? `[${u.hostname}]` : u.hostname}:${u.port || '4222'}`);
  }
  if (servers.length === 0) return { ok: false, problem: { message: 'the store URL is empty', hint: 'write it as nats://HOST:4222' } };
  return { ok: true, url: { servers, tls, ...(urlUser ? { urlUser } : {}) } };
}

/** The URL with any user:password taken out, fit for messages, logs and team files. */
export function redactUrl(value: string): string {
  return value.replace(/(\w+:\/\/)[^@/,]*@/g, '$1');
}

/** Read a secret from an environment variable or the file another variable names; trailing newline dropped. */
function secret(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const direct = env[name];
  if (direct) return direct;
  const file = env[`${name}_FILE`];
  if (!file) return undefined;
  return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
}

/**
 * The connection options for a store URL and environment: TEAMUX_NATS_USER + TEAMUX_NATS_PASSWORD,
 * TEAMUX_NATS_TOKEN, TEAMUX_NATS_NKEY (a seed file) or TEAMUX_NATS_NKEY_SEED (the seed), TEAMUX_NATS_CREDS
 * (a creds file) or TEAMUX_NATS_CREDS_TEXT (its text); each secret
 * may come from a file named by the same variable with _FILE. TLS: tls:// or TEAMUX_NATS_TLS_CA /
 * TEAMUX_NATS_TLS_CERT / TEAMUX_NATS_TLS_KEY.
 */
export function connectionOptions(url: StoreUrl, env: NodeJS.ProcessEnv, name: string): { ok: true; options: NodeConnectionOptions } | { ok: false; problem: ConnectProblem } {
  const auth: Authenticator[] = [];
  try {
    const user = env.TEAMUX_NATS_USER ?? url.urlUser?.user;
    const pass = secret(env, 'TEAMUX_NATS_PASSWORD') ?? url.urlUser?.pass;
    if (user) auth.push(usernamePasswordAuthenticator(user, pass ?? ''));
    const token = secret(env, 'TEAMUX_NATS_TOKEN');
    if (token) auth.push(tokenAuthenticator(token));
    // A seed or creds may also come as a value (a member started over ssh gets them so: host/ssh-member.ts).
    const seed = env.TEAMUX_NATS_NKEY_SEED?.trim() || (env.TEAMUX_NATS_NKEY ? readFileSync(env.TEAMUX_NATS_NKEY, 'utf8').trim() : undefined);
    if (seed) auth.push(nkeyAuthenticator(new TextEncoder().encode(seed)));
    const creds = env.TEAMUX_NATS_CREDS_TEXT ? new TextEncoder().encode(env.TEAMUX_NATS_CREDS_TEXT) : env.TEAMUX_NATS_CREDS ? new Uint8Array(readFileSync(env.TEAMUX_NATS_CREDS)) : undefined;
    if (creds) auth.push(credsAuthenticator(creds));
  } catch (err) {
    return { ok: false, problem: { message: `cannot read a NATS credential: ${(err as Error).message}`, hint: 'check the files named by TEAMUX_NATS_*_FILE, TEAMUX_NATS_NKEY and TEAMUX_NATS_CREDS' } };
  }
  const options: NodeConnectionOptions = {
    servers: url.servers, name, timeout: 3_000, reconnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 250, waitOnFirstConnect: false,
  };
  if (auth.length > 0) options.authenticator = auth;
  if (url.tls || env.TEAMUX_NATS_TLS_CA || env.TEAMUX_NATS_TLS_CERT) {
    options.tls = {
      ...(env.TEAMUX_NATS_TLS_CA ? { caFile: env.TEAMUX_NATS_TLS_CA } : {}),
      ...(env.TEAMUX_NATS_TLS_CERT ? { certFile: env.TEAMUX_NATS_TLS_CERT } : {}),
      ...(env.TEAMUX_NATS_TLS_KEY ? { keyFile: env.TEAMUX_NATS_TLS_KEY } : {}),
    };
  }
  return { ok: true, options };
}

/** Connect and check that JetStream answers; every failure is a problem with a hint, never a throw. */
export async function connectStore(value: string, env: NodeJS.ProcessEnv, name: string): Promise<{ ok: true; nc: NatsConnection; url: StoreUrl } | { ok: false; problem: ConnectProblem }> {
  const parsed = parseStoreUrl(value);
  if (!parsed.ok) return parsed;
  const opts = connectionOptions(parsed.url, env, name);
  if (!opts.ok) return opts;
  const shown = parsed.url.servers.join(',');
  let nc: NatsConnection;
  try {
    nc = await connect(opts.options);
  } catch (err) {
    return { ok: false, problem: describeConnectError(err as Error, shown) };
  }
  try {
    const jsm = await jetstreamManager(nc, { timeout: 3_000 });
    await jsm.getAccountInfo();
  } catch (err) {
    await nc.close().catch(() => {});
    const e = err as Error;
    return { ok: false, problem: { message: `the NATS server at ${shown} has no JetStream (${e.message})`, hint: 'start nats-server with -js (JetStream), e.g. `nats-server -js -sd DIR`, or enable jetstream {} in its config' } };
  }
  return { ok: true, nc, url: parsed.url };
}

/** A connection error as a message and a hint. */
export function describeConnectError(err: Error, shown: string): ConnectProblem {
  const text = `${err.name} ${err.message} ${String((err as { cause?: unknown }).cause ?? '')}`;
  if (/authoriz|authentication|auth/i.test(text)) {
    return { message: `the NATS server at ${shown} refused the credentials (${err.message})`, hint: 'set TEAMUX_NATS_USER and TEAMUX_NATS_PASSWORD, TEAMUX_NATS_TOKEN, TEAMUX_NATS_NKEY or TEAMUX_NATS_CREDS (or *_FILE) to what the server expects' };
  }
  if (/TLS|certificate|SSL/i.test(text)) {
    return { message: `TLS with the NATS server at ${shown} failed (${err.message})`, hint: 'use tls:// only when the server has TLS; set TEAMUX_NATS_TLS_CA to its CA file' };
  }
  return { message: `cannot reach a NATS server at ${shown} (${err.message})`, hint: START_HINT };
}
