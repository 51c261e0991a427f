import { defineOptions, type OptionValuesOf } from '../config/options.js';

// Apart from bus.ts, so that parsing a command line that takes them (headroom run) loads no bus code.

/** The bus options `headroom agent` and `headroom run --agents` share; they go to the nats client as given. */
export const BUS_OPTIONS = defineOptions([
  { long: 'nats', type: 'string', value: 'URL', help: 'NATS server(s) to coordinate over, e.g. nats://10.0.0.5:4222 (comma-separated for a cluster)' },
  { long: 'trust', type: 'string', value: 'SECRET', help: 'shared secret (16+ characters) that signs every plan and report; else HEADROOM_TRUST' },
  { long: 'nats-subject', type: 'string', value: 'PREFIX', help: 'subject prefix of the coordination messages (one per group of agents)', default: 'headroom' },
  { long: 'nats-creds', type: 'string', value: 'FILE', help: 'NATS credentials file (JWT and NKEY seed)' },
  { long: 'nats-nkey', type: 'string', value: 'FILE', help: 'NATS NKEY seed file' },
  { long: 'nats-tls-ca', type: 'string', value: 'FILE', help: "CA that signed the NATS server's certificate (turns TLS on)" },
  { long: 'nats-tls-cert', type: 'string', value: 'FILE', help: 'client certificate for NATS TLS' },
  { long: 'nats-tls-key', type: 'string', value: 'FILE', help: 'client key for NATS TLS' },
]);
export type BusValues = OptionValuesOf<typeof BUS_OPTIONS>;
