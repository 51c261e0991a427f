/**
 * The layers of src/ and the directions imports may take (docs/layers.md draws them). A module
 * imports its own folder and the layers below it, never one above; no import cycles anywhere.
 * `npm run lint` runs this; known violations still to be removed are listed in
 * .dependency-cruiser-known-violations.json (see docs/layers.md), and no new one passes.
 */

/**
 * The layers from top to bottom: each imports its own folder and any layer below it. drivers and
 * config are one band, the connection layer: drivers read the resolved target, and config hands
 * each DBMS's part of the URL (grammar, environment, TLS) to its driver folder.
 */
const ORDER = [
  'cli',
  'experiments',
  'session',
  'agents',
  'capacity',
  'reports',
  'thresholds',
  'result',
  'engine',
  'observe',
  'module',
  'workloads',
  'metrics',
  ['drivers', 'config'],
];

const bands = ORDER.map((band) => (Array.isArray(band) ? band : [band]));
const LAYERS = Object.fromEntries(bands.flatMap((band, i) => band.map((layer) => [layer, [...band.filter((l) => l !== layer), ...bands.slice(i + 1).flat()]])));

/** Folders every layer may import: shared helpers (src/common) and the user-error types (src/errors.ts). */
const SHARED = '^src/(common/|errors\\.ts$)';

const layerRules = Object.entries(LAYERS).map(([layer, below]) => ({
  name: `layer-${layer}`,
  comment: `src/${layer}/ imports only its own folder, ${below.join(', ')} and the shared modules (docs/layers.md)`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: '^src/', pathNot: [`^src/(${[layer, ...below].join('|')})/`, SHARED] },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles: a cycle makes load order matter and the layers meaningless',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'shared-is-a-leaf',
      comment: 'src/common and src/errors.ts import nothing of headroom but each other',
      severity: 'error',
      from: { path: SHARED },
      to: { path: '^src/', pathNot: SHARED },
    },
    ...layerRules,
    {
      name: 'src-not-test',
      comment: 'The product never imports its tests or benchmarks',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|build|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
