import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { UserError } from '../../errors.js';
import type { TlsSettings } from '../transport/tls.js';
import { TLS_MODES, type TlsMode } from '../transport/tls-modes.js';

/** The URL parameters this file reads (libpq's names); a strict parameter check accepts these. */
export const POSTGRES_TLS_PARAMETERS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'sslcrl', 'sslcrldir', 'sslnegotiation', 'channel_binding'] as const;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * libpq's variables for the ssl* parameters headroom does not honour yet (src/config/parameters.ts
 * refuses them in a URL): refused here too, since a psql user's variable silently doing nothing
 * would describe another connection than the one measured.
 */
const NOT_SUPPORTED_VARIABLES: Record<string, string> = {
  PGSSLSNI: 'sslsni',
  PGSSLCOMPRESSION: 'sslcompression',
  PGSSLCERTMODE: 'sslcertmode',
  PGSSLMINPROTOCOLVERSION: 'ssl_min_protocol_version',
  PGSSLMAXPROTOCOLVERSION: 'ssl_max_protocol_version',
  // libpq's old spelling of sslmode=require (1) or prefer (0).
  PGREQUIRESSL: 'requiressl',
};

const HINT =
  'see libpq\'s "SSL Support": sslmode=disable|allow|prefer|require|verify-ca|verify-full, sslrootcert=FILE|system, sslcert=FILE, sslkey=FILE, sslcrl=FILE, sslcrldir=FOLDER';

/**
 * TLS as libpq resolves it, so that a psql user's URL and environment mean the same here: each
 * setting from the URL, else its PG* variable, else libpq's default (sslmode=prefer; the files in
 * ~/.postgresql when they exist). Only the file names are kept; the files are read when connecting.
 * Undefined when nothing is set: libpq's defaults, POSTGRES_TLS_DEFAULT.
 */
export function postgresTlsSettings(params: URLSearchParams | undefined, env: Env, home: string = homedir()): TlsSettings | undefined {
  const pick = (name: string, variable: string): { value: string; source: string } | undefined => {
    const fromUrl = params?.get(name);
    if (fromUrl !== null && fromUrl !== undefined) return { value: fromUrl, source: name };
    const fromEnv = env[variable];
    return fromEnv !== undefined && fromEnv !== '' ? { value: fromEnv, source: variable } : undefined;
  };
  for (const [variable, name] of Object.entries(NOT_SUPPORTED_VARIABLES)) {
    if (env[variable] !== undefined && env[variable] !== '')
      throw new UserError(`${variable} is set, but the libpq setting ${name} is not supported by headroom yet`, `unset ${variable}`);
  }
  const modeGiven = pick('sslmode', 'PGSSLMODE');
  const mode = (modeGiven?.value ?? 'prefer') as TlsMode;
  if (!TLS_MODES.includes(mode)) throw new UserError(`${modeGiven!.source}=${modeGiven!.value} is not an sslmode`, HINT);
  const folder = path.join(home, '.postgresql');
  const defaultFile = (name: string): string | undefined => (existsSync(path.join(folder, name)) ? path.join(folder, name) : undefined);

  const settings: TlsSettings = { mode, modeSource: modeGiven?.source ?? 'sslmode (default prefer)' };
  const binding = pick('channel_binding', 'PGCHANNELBINDING');
  if (binding !== undefined) {
    if (!['disable', 'prefer', 'require'].includes(binding.value))
      throw new UserError(`${binding.source}=${binding.value} is not a channel_binding`, 'use channel_binding=disable, prefer (the default) or require');
    settings.channelBinding = binding.value as TlsSettings['channelBinding'];
  }
  if (mode === 'disable') return settings;
  const rootCert = pick('sslrootcert', 'PGSSLROOTCERT')?.value ?? defaultFile('root.crt');
  if (rootCert === 'system' && mode !== 'verify-full') {
    // libpq 16: the machine's many CAs prove little without the host name check.
    throw new UserError(`sslrootcert=system needs sslmode=verify-full, not ${mode}`, 'use sslmode=verify-full with sslrootcert=system');
  }
  if (rootCert === undefined && (mode === 'verify-ca' || mode === 'verify-full')) {
    throw new UserError(
      `sslmode=${mode} needs a root certificate, and ${path.join(folder, 'root.crt')} does not exist`,
      "give sslrootcert=FILE (or PGSSLROOTCERT), sslrootcert=system for the machine's trusted CAs, or sslmode=require to skip verification",
    );
  }
  if (rootCert !== undefined) settings.rootCert = rootCert;
  const cert = pick('sslcert', 'PGSSLCERT')?.value ?? defaultFile('postgresql.crt');
  const key = pick('sslkey', 'PGSSLKEY')?.value ?? (cert !== undefined ? defaultFile('postgresql.key') : undefined);
  if (cert !== undefined) settings.cert = cert;
  if (key !== undefined) settings.key = key;
  if (cert !== undefined && key === undefined) throw new UserError(`the client certificate ${cert} has no key`, 'give sslkey=FILE (or PGSSLKEY)');
  const crl = pick('sslcrl', 'PGSSLCRL');
  const defaultCrl = defaultFile('root.crl');
  if (crl !== undefined) [settings.crl, settings.crlSource] = [crl.value, crl.source];
  else if (defaultCrl !== undefined) [settings.crl, settings.crlSource] = [defaultCrl, 'the default sslcrl'];
  const crlDir = pick('sslcrldir', 'PGSSLCRLDIR');
  if (crlDir !== undefined) [settings.crlDir, settings.crlDirSource] = [crlDir.value, crlDir.source];

  const negotiation = pick('sslnegotiation', 'PGSSLNEGOTIATION');
  if (negotiation !== undefined) {
    if (negotiation.value !== 'postgres' && negotiation.value !== 'direct')
      throw new UserError(`${negotiation.source}=${negotiation.value} is not an SSL negotiation`, 'use sslnegotiation=postgres (the default) or direct');
    if (negotiation.value === 'direct') {
      // libpq 17: a weaker mode could fall back to a plaintext login when the server lacks direct TLS.
      if (mode === 'allow' || mode === 'prefer')
        throw new UserError(`sslnegotiation=direct needs sslmode=require or stronger, not ${mode}`, 'add sslmode=require');
      settings.direct = true;
    }
  }
  return Object.keys(settings).length === 2 && modeGiven === undefined ? undefined : settings;
}

/** sslmode=prefer without files: what a target without `tls` means, as for libpq. */
export const POSTGRES_TLS_DEFAULT: TlsSettings = { mode: 'prefer', modeSource: 'sslmode (default prefer)' };
