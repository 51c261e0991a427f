/**
 * How a connection uses TLS, in libpq's sslmode words (MariaDB's ssl options map onto them):
 * disable never; allow plaintext first, TLS if the server refuses it; prefer TLS when the server
 * offers it; require TLS without checking the certificate; verify-ca TLS with a certificate signed
 * by a trusted CA; verify-full that too, issued for the host name connected to.
 */
export type TlsMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';
export const TLS_MODES: readonly TlsMode[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];
