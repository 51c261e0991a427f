import { UserError } from '../../errors.js';
import type { TlsMode, TlsSettings } from '../transport/tls.js';

/** The URL parameters this file reads (the mariadb and mysql clients' option names); a strict parameter check accepts these. */
export const MARIADB_TLS_PARAMETERS = [
  'ssl',
  'ssl-mode',
  'ssl-ca',
  'ssl-cert',
  'ssl-key',
  'ssl-crl',
  'ssl-crlpath',
  'ssl-verify-server-cert',
  'server-public-key-path',
  'get-server-public-key',
] as const;

const HINT = 'use ?ssl=true, ?ssl-verify-server-cert=true&ssl-ca=FILE, or ?ssl-mode=DISABLED|PREFERRED|REQUIRED|VERIFY_CA|VERIFY_IDENTITY';

/** MySQL's --ssl-mode values in libpq's words. */
const SSL_MODES: Record<string, TlsMode> = {
  DISABLED: 'disable',
  PREFERRED: 'prefer',
  REQUIRED: 'require',
  VERIFY_CA: 'verify-ca',
  VERIFY_IDENTITY: 'verify-full',
};

/**
 * TLS as the mariadb and mysql clients take it: `ssl-mode` (MySQL's names) when given; else
 * `ssl-verify-server-cert` (chain and host name checked), `ssl` or any certificate file (TLS
 * required). A given `ssl-ca` is checked against in every mode, as MySQL's client does with
 * --ssl-ca; a verifying mode without it uses the machine's CAs. Undefined when nothing is
 * set: no TLS, the MariaDB client's default before 11.4.
 */
export function mariadbTlsSettings(params: URLSearchParams | undefined): TlsSettings | undefined {
  const get = (name: string): string | undefined => params?.get(name) ?? undefined;
  const flag = (name: string): boolean | undefined => {
    const value = get(name);
    if (value === undefined) return undefined;
    if (['', '1', 'true', 'on', 'yes'].includes(value.toLowerCase())) return true;
    if (['0', 'false', 'off', 'no'].includes(value.toLowerCase())) return false;
    throw new UserError(`?${name}=${value} is not true or false`, HINT);
  };
  const ssl = flag('ssl');
  const verify = flag('ssl-verify-server-cert');
  const files = { rootCert: get('ssl-ca'), cert: get('ssl-cert'), key: get('ssl-key'), crl: get('ssl-crl'), crlDir: get('ssl-crlpath') };
  const anyFile = Object.values(files).some((file) => file !== undefined);
  const modeText = get('ssl-mode');
  let mode: TlsMode;
  let modeSource: string;
  if (modeText !== undefined) {
    const named = SSL_MODES[modeText.toUpperCase()];
    if (!named) throw new UserError(`?ssl-mode=${modeText} is not an SSL mode`, HINT);
    if (ssl === false && named !== 'disable') throw new UserError(`?ssl-mode=${modeText} contradicts ?ssl=false`, HINT);
    if (verify === false && (named === 'verify-ca' || named === 'verify-full'))
      throw new UserError(`?ssl-mode=${modeText} contradicts ?ssl-verify-server-cert=false`, HINT);
    mode = named;
    modeSource = 'ssl-mode';
  } else if (verify === true) {
    if (ssl === false) throw new UserError('?ssl-verify-server-cert=true contradicts ?ssl=false', HINT);
    [mode, modeSource] = ['verify-full', 'ssl-verify-server-cert'];
  } else if (ssl === true || (ssl === undefined && anyFile)) {
    [mode, modeSource] = ['require', ssl === true ? 'ssl' : 'ssl-ca/ssl-cert/ssl-key'];
  } else if (ssl === false) {
    [mode, modeSource] = ['disable', 'ssl'];
  } else {
    [mode, modeSource] = ['disable', 'ssl (default off)'];
  }
  const settings: TlsSettings = { mode, modeSource };
  // caching_sha2_password without TLS (MySQL's --server-public-key-path, --get-server-public-key).
  const publicKey = get('server-public-key-path');
  if (publicKey !== undefined) settings.serverPublicKey = publicKey;
  if (flag('get-server-public-key') === true) settings.getServerPublicKey = true;
  if (modeText === undefined && ssl === undefined && !anyFile && verify === undefined && publicKey === undefined && settings.getServerPublicKey === undefined)
    return undefined;
  if (mode === 'disable') return settings;
  if (files.rootCert !== undefined) settings.rootCert = files.rootCert;
  else if (mode === 'verify-ca' || mode === 'verify-full') settings.rootCert = 'system';
  if (files.cert !== undefined) settings.cert = files.cert;
  if (files.key !== undefined) settings.key = files.key;
  if (files.cert !== undefined && files.key === undefined) throw new UserError(`the client certificate ${files.cert} has no key`, 'add ?ssl-key=FILE');
  if (files.crl !== undefined) [settings.crl, settings.crlSource] = [files.crl, 'ssl-crl'];
  // A folder of CRLs named by hash, as the client's OpenSSL lookup reads it (see TlsSettings.crlDir).
  if (files.crlDir !== undefined) [settings.crlDir, settings.crlDirSource] = [files.crlDir, 'ssl-crlpath'];
  return settings;
}
