import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Certificates made by the test with openssl (P-256 keys, quick to make), all PEM files in `folder`. */
export interface TestCertificates {
  folder: string;
  /** The CA that signs the others, and an unrelated one. */
  ca: string;
  otherCa: string;
  /** For 127.0.0.1 and localhost, signed by `ca`. */
  server: { cert: string; key: string };
  /** For db.example.com only. */
  otherHost: { cert: string; key: string };
  /** For 127.0.0.1, expired yesterday. */
  expired: { cert: string; key: string };
  /** A client certificate whose CN is `clientName`, signed by `ca`. */
  client: { cert: string; key: string };
  /** Certificate revocation lists (PEM) signed by `ca`: one that revokes `server`, one that revokes nothing; and `otherCa`'s, revoking nothing. */
  crl: { revokingServer: string; empty: string; otherCa: string };
  remove(): void;
}

export function opensslUnavailable(): string | undefined {
  try {
    execFileSync('openssl', ['version'], { stdio: 'pipe' });
    return undefined;
  } catch {
    return 'the openssl command is missing (apt-get install openssl)';
  }
}

export function makeCertificates(clientName: string): TestCertificates {
  const folder = mkdtempSync(path.join(tmpdir(), 'headroom-certs-'));
  chmodSync(folder, 0o755);
  const file = (name: string): string => path.join(folder, name);
  const openssl = (args: string[]): void => void execFileSync('openssl', args, { stdio: 'pipe', cwd: folder });
  const key = (name: string): string => {
    openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file(name)]);
    chmodSync(file(name), 0o600);
    return file(name);
  };
  const ca = (name: string): string => {
    key(`${name}.key`);
    openssl(['req', '-x509', '-new', '-key', file(`${name}.key`), '-out', file(`${name}.crt`), '-subj', `/CN=headroom test ${name}`, '-days', '2']);
    return file(`${name}.crt`);
  };
  const issue = (name: string, subject: string, altNames: string | undefined, days: string): { cert: string; key: string } => {
    key(`${name}.key`);
    openssl(['req', '-new', '-key', file(`${name}.key`), '-out', file(`${name}.csr`), '-subj', subject]);
    const extensions = file(`${name}.ext`);
    writeFileSync(extensions, altNames ? `subjectAltName=${altNames}\n` : 'basicConstraints=CA:FALSE\n');
    openssl([
      'x509',
      '-req',
      '-in',
      file(`${name}.csr`),
      '-CA',
      file('ca.crt'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-out',
      file(`${name}.crt`),
      '-days',
      days,
      '-extfile',
      extensions,
    ]);
    return { cert: file(`${name}.crt`), key: file(`${name}.key`) };
  };
  const caFile = ca('ca');
  const otherCa = ca('other-ca');
  const server = issue('server', '/CN=127.0.0.1', 'IP:127.0.0.1,DNS:localhost', '2');
  const made: TestCertificates = {
    folder,
    ca: caFile,
    otherCa,
    server,
    otherHost: issue('other-host', '/CN=db.example.com', 'DNS:db.example.com', '2'),
    // A negative validity: notAfter lies before notBefore, so the certificate has already expired.
    expired: issue('expired', '/CN=127.0.0.1', 'IP:127.0.0.1,DNS:localhost', '-1'),
    client: issue('client', `/CN=${clientName}`, undefined, '2'),
    crl: revocationLists(folder, server.cert),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
  return made;
}

/**
 * CRLs from the test CA as `openssl ca` makes them (the only openssl command that signs one): it
 * needs a config naming its index of issued certificates and the next CRL number, nothing more.
 */
function revocationLists(folder: string, revoked: string): TestCertificates['crl'] {
  const file = (name: string): string => path.join(folder, name);
  writeFileSync(file('crl.cnf'), '[ca]\ndefault_ca = test\n[test]\ndatabase = index.txt\ncrlnumber = crlnumber\ndefault_md = sha256\ndefault_crl_days = 2\n');
  writeFileSync(file('index.txt'), '');
  writeFileSync(file('crlnumber'), '01\n');
  const ca = (name: string, args: string[]): void =>
    void execFileSync('openssl', ['ca', '-config', 'crl.cnf', '-keyfile', `${name}.key`, '-cert', `${name}.crt`, ...args], { stdio: 'pipe', cwd: folder });
  ca('ca', ['-gencrl', '-out', 'empty.crl']);
  ca('other-ca', ['-gencrl', '-out', 'other-ca.crl']);
  ca('ca', ['-revoke', revoked]);
  ca('ca', ['-gencrl', '-out', 'revoking-server.crl']);
  return { revokingServer: file('revoking-server.crl'), empty: file('empty.crl'), otherCa: file('other-ca.crl') };
}
