import { readFileSync } from 'node:fs';
import type { ConnectionOptions, NatsConnection } from 'nats';
import type { BusValues } from './bus-options.js';
import { userinfoEnd } from '../config/redact.js';
import { UserError } from '../errors.js';
import { Signer } from './signing.js';

export { BUS_OPTIONS, type BusValues } from './bus-options.js';
/** The options naming a file the bus reads. */
type BusFileOption = 'nats-creds' | 'nats-nkey' | 'nats-tls-ca' | 'nats-tls-cert' | 'nats-tls-key';

export interface Bus {
  nc: NatsConnection;
  signer: Signer;
  /** Subject prefix; every subject is `${prefix}.…`. */
  prefix: string;
}

export type RunSubject = 'hello' | 'claim' | 'time' | 'ready' | 'start' | 'tick' | 'beat' | 'done' | 'stop' | 'coordinator';

export const subjects = {
  /** The coordinator's calls to idle agents, which answer with a hello on the run's subject. */
  calls: (prefix: string) => `${prefix}.calls`,
  /** Plans for one agent process, by the instance its hello gave. */
  plans: (prefix: string, instance: string) => `${prefix}.plans.${instance}`,
  /** claim and time are requests the coordinator answers; coordinator carries its heartbeat. */
  run: (prefix: string, runId: string, what: RunSubject) => `${prefix}.run.${runId}.${what}`,
};

/** The secret from --trust or HEADROOM_TRUST; refused in one line when missing or short. */
export function trustSecret(values: Pick<BusValues, 'trust'>): string {
  const secret = values.trust ?? process.env['HEADROOM_TRUST'];
  if (secret === undefined || secret === '') {
    throw new UserError(
      'no shared secret: agents act only on plans signed with one',
      'give --trust SECRET (the same on the coordinator and every agent) or set HEADROOM_TRUST',
    );
  }
  if (secret.length < 16) throw new UserError('the --trust secret is shorter than 16 characters', 'use a longer secret, e.g. openssl rand -hex 32');
  return secret;
}

/** Connects as the options say; a server that is not there, or refuses us, is one line (exit 2). */
export async function openBus(values: BusValues, name: string): Promise<Bus> {
  const url = values.nats;
  if (url === undefined) throw new UserError('no NATS server given', 'give --nats nats://HOST:4222');
  // Loaded here, not at start-up: the nats client costs about 90 ms of CPU to import, which every
  // local run would otherwise pay (and count in its client CPU).
  const { connect, credsAuthenticator, nkeyAuthenticator } = await import('nats');
  const signer = new Signer(trustSecret(values));
  const options: ConnectionOptions = { servers: url.split(',').map(withoutLogin), name, timeout: 5000, maxReconnectAttempts: 10, reconnectTimeWait: 500 };
  // nats://user:password@host: the nats client takes the login as options, not in the server list.
  const login = loginOf(url.split(',')[0]!);
  if (login) Object.assign(options, login);
  const file = (option: BusFileOption): string | undefined => values[option];
  const read = (option: BusFileOption): Uint8Array => {
    try {
      return readFileSync(file(option)!);
    } catch (error) {
      throw new UserError(`cannot read --${option} ${file(option)}: ${(error as Error).message}`);
    }
  };
  if (file('nats-creds') !== undefined) options.authenticator = credsAuthenticator(read('nats-creds'));
  else if (file('nats-nkey') !== undefined)
    options.authenticator = nkeyAuthenticator(new TextEncoder().encode(Buffer.from(read('nats-nkey')).toString().trim()));
  if (file('nats-tls-ca') !== undefined || file('nats-tls-cert') !== undefined) {
    options.tls = {
      ...serverIdentity(url),
      ...(file('nats-tls-ca') !== undefined ? { caFile: file('nats-tls-ca')! } : {}),
      ...(file('nats-tls-cert') !== undefined ? { certFile: file('nats-tls-cert')! } : {}),
      ...(file('nats-tls-key') !== undefined ? { keyFile: file('nats-tls-key')! } : {}),
    };
  }
  try {
    const nc = await connect(options);
    return { nc, signer, prefix: values['nats-subject'] };
  } catch (error) {
    const [why, hint] = busProblem(error as Error & { code?: string });
    const where = url.split(',').map(withoutLogin).join(',');
    throw new UserError(`cannot reach the NATS server at ${where}: ${why}`, hint);
  }
}

/** Node's codes for a server certificate it does not trust. */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
]);

/** What went wrong connecting, in a few words, and what to do about it. */
function busProblem(error: Error & { code?: string }): [string, string] {
  const code = error.code ?? '';
  if (code === 'CONNECTION_REFUSED') return ['connection refused', 'start it with nats-server -js, or fix --nats'];
  if (code === 'AUTHORIZATION_VIOLATION')
    return ['not authorised', 'fix the login: the user and password in --nats, --nats-nkey or --nats-creds, as the server lets them in'];
  if (UNTRUSTED.has(code)) return [`its TLS certificate is not trusted (${error.message})`, "give --nats-tls-ca the CA that signed the server's certificate"];
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return [`its TLS certificate is for another host (${error.message})`, 'name the server in --nats as its certificate does'];
  // A server that wants a client certificate closes a TLS connection that brings none: no INFO, no error, a timeout.
  if (code === 'TIMEOUT')
    return [
      'no answer within 5 s',
      'check that it is a NATS server; one that wants a client certificate says nothing without one: give --nats-tls-cert and --nats-tls-key',
    ];
  return [error.message, 'start it with nats-server -js, or fix --nats and its credentials'];
}

/**
 * The nats client checks a server reached by IP address against the name "localhost" (it gives
 * Node's TLS no name for an address): a certificate issued for the address would be refused. With
 * one server, its own host is the name checked.
 */
function serverIdentity(url: string): { host?: string } {
  const servers = url.split(',');
  if (servers.length !== 1) return {};
  try {
    const host = new URL(servers[0]!.includes('://') ? servers[0]! : `nats://${servers[0]!}`).hostname.replace(/^\[|\]$/g, '');
    return host === '' ? {} : { host };
  } catch {
    return {};
  }
}

function loginOf(server: string): { user: string; pass: string } | undefined {
  try {
    const parsed = new URL(server.includes('://') ? server : `nats://${server}`);
    return parsed.username === '' ? undefined : { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) };
  } catch {
    return undefined;
  }
}

/** The server without its user and password (which may hold "@"), for the nats client's list and for messages. */
function withoutLogin(server: string): string {
  const [, scheme = '', body = server] = /^([a-z][a-z0-9+.-]*:\/\/)?([^]*)$/i.exec(server) ?? [];
  return scheme + body.slice(userinfoEnd(body) + 1);
}
