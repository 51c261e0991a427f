import { defineOptions } from '../config/options.js';
import { UserError } from '../errors.js';
import { parseArgs } from '../config/args.js';
import { HELP_OPTION } from '../session/options.js';
import { agentJobManifest, manifestYaml } from '../agents/k8s-manifest.js';

export const K8S_OPTIONS = defineOptions([
  { long: 'agents', type: 'integer', min: 1, value: 'K', help: "agents to run: the Job's completions and parallelism" },
  { long: 'nats', type: 'string', value: 'URL', help: 'NATS server as the pods reach it, e.g. nats://nats.default.svc:4222' },
  { long: 'name', type: 'string', value: 'NAME', help: "the Job's name", default: 'headroom-agents' },
  { long: 'namespace', type: 'string', value: 'NS', help: "namespace of the Job (absent: kubectl's current)" },
  { long: 'image', type: 'string', value: 'IMAGE', help: 'container image with Node.js 20 and headroom installed (npx headroom works in it)' },
  {
    long: 'trust-secret',
    type: 'string',
    value: 'SECRET/KEY',
    help: 'Kubernetes Secret and key holding the shared secret (HEADROOM_TRUST)',
    default: 'headroom-trust/secret',
  },
  {
    long: 'db-secret',
    type: 'string',
    value: 'SECRET',
    help: "Kubernetes Secret whose keys become the agents' environment (PGPASSWORD, MYSQL_PWD, ...): passwords never travel on the bus",
  },
  { long: 'nats-subject', type: 'string', value: 'PREFIX', help: 'subject prefix, as given to headroom run', default: 'headroom' },
  { long: 'cpu', type: 'string', value: 'CPU', help: 'CPU request and limit per agent', default: '2' },
  { long: 'memory', type: 'string', value: 'SIZE', help: 'memory request and limit per agent', default: '1Gi' },
  HELP_OPTION,
]);

/** `headroom k8s manifest`: prints an Indexed Job of K agents, one pod each, for kubectl apply -f -. */
export async function k8sCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs(argv, K8S_OPTIONS, 'k8s');
  if (positionals.length !== 1 || positionals[0] !== 'manifest')
    throw new UserError('"headroom k8s" has one subcommand: manifest', 'use: headroom k8s manifest --agents K --nats URL');
  const { agents, nats, image } = values;
  if (agents === undefined || nats === undefined || image === undefined) {
    throw new UserError(
      'headroom k8s manifest needs --agents K, --nats URL and --image IMAGE',
      'e.g. headroom k8s manifest --agents 3 --nats nats://nats:4222 --image registry.example/headroom:0.1',
    );
  }
  const [trustSecret, trustKey] = values['trust-secret'].split('/');
  if (!trustSecret || !trustKey) throw new UserError('--trust-secret is SECRET/KEY', 'e.g. --trust-secret headroom-trust/secret');
  const manifest = agentJobManifest({
    agents,
    nats,
    name: values.name,
    namespace: values.namespace,
    image,
    trustSecret: { name: trustSecret, key: trustKey },
    dbSecret: values['db-secret'],
    subject: values['nats-subject'],
    cpu: values.cpu,
    memory: values.memory,
  });
  process.stdout.write(manifestYaml(manifest));
  return 0;
}
