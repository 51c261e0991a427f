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
  const made: TestCertificates = {
    folder,
    ca: ca('ca'),
    otherCa: ca('other-ca'),
    server: issue('server', '/CN=127.0.0.1', 'IP:127.0.0.1,DNS:localhost', '2'),
    otherHost: issue('other-host', '/CN=db.example.com', 'DNS:db.example.com', '2'),
    // A negative validity: notAfter lies before notBefore, so the certificate has already expired.
    expired: issue('expired', '/CN=127.0.0.1', 'IP:127.0.0.1,DNS:localhost', '-1'),
    client: issue('client', `/CN=${clientName}`, undefined, '2'),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
  return made;
}
