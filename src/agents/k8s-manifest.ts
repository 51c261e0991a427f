/** What `headroom k8s manifest` asks for. */
export interface AgentJobSettings {
  agents: number;
  nats: string;
  name: string;
  namespace: string | undefined;
  image: string;
  trustSecret: { name: string; key: string };
  dbSecret: string | undefined;
  subject: string;
  cpu: string;
  memory: string;
}

type Yaml = string | number | boolean | Yaml[] | { [key: string]: Yaml };

/**
 * A Kubernetes Indexed Job: K pods, one agent each (--once, so a pod completes after its run), named
 * by their completion index. The shared secret and the database passwords come from Secrets into
 * the environment, never from the manifest or the bus.
 */
export function agentJobManifest(s: AgentJobSettings): { [key: string]: Yaml } {
  const labels = { 'app.kubernetes.io/name': 'headroom-agent', 'app.kubernetes.io/instance': s.name };
  const resources = { cpu: s.cpu, memory: s.memory };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: s.name, ...(s.namespace ? { namespace: s.namespace } : {}), labels },
    spec: {
      completionMode: 'Indexed',
      completions: s.agents,
      parallelism: s.agents,
      // An agent that fails is not started again mid-run: the coordinator reports the loss instead.
      backoffLimit: 0,
      ttlSecondsAfterFinished: 3600,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'agent',
              image: s.image,
              command: ['npx', '--no-install', 'headroom', 'agent'],
              // $(VAR) is expanded by the kubelet from the container's environment.
              args: ['--nats', s.nats, '--nats-subject', s.subject, '--name', '$(POD_NAME)', '--once'],
              env: [
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'HEADROOM_TRUST', valueFrom: { secretKeyRef: { name: s.trustSecret.name, key: s.trustSecret.key } } },
              ],
              ...(s.dbSecret ? { envFrom: [{ secretRef: { name: s.dbSecret } }] } : {}),
              resources: { requests: resources, limits: resources },
              securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true, runAsUser: 1000, capabilities: { drop: ['ALL'] } },
            },
          ],
        },
      },
    },
  };
}

/** Block-style YAML with every string double-quoted (JSON's escapes are YAML's), so no value is read as another type. */
export function manifestYaml(value: { [key: string]: Yaml }): string {
  return `${emit(value, 0).join('\n')}\n`;
}

function emit(value: Yaml, indent: number): string[] {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    return value.flatMap((item) => {
      const lines = scalar(item) ?? emit(item, indent + 2);
      return typeof item === 'object' ? [`${pad}- ${lines[0]!.trimStart()}`, ...lines.slice(1)] : [`${pad}- ${lines[0]}`];
    });
  }
  if (typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => {
      const text = scalar(item);
      if (text) return [`${pad}${key}: ${text[0]}`];
      return [`${pad}${key}:`, ...emit(item, indent + 2)];
    });
  }
  return [pad + scalar(value)![0]];
}

function scalar(value: Yaml): [string] | undefined {
  if (typeof value === 'string') return [JSON.stringify(value)];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value) && value.length === 0) return ['[]'];
  if (!Array.isArray(value) && Object.keys(value).length === 0) return ['{}'];
  return undefined;
}
