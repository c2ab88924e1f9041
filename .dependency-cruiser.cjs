// dependency-cruiser rules for Respire's layering (STYLE.md "Layers") and its zero runtime dependencies.
//
// Imports only go down: errors/util <- resp <- transport <- breaker <- client <- cluster, sentinel
// <- `src/respire-client.ts` (RespireClient, whose connect() chooses a router) <- failover (a
// group of RespireClient-like members) <- `src/index.ts`; nothing imports `src/index.ts`. Layers that do not exist yet are covered by their path patterns as soon as their directory appears.
//
// Why the rules are not run on `src/` directly: dependency-cruiser 17 reads TypeScript only
// through the `typescript` package's JavaScript API (supported range >=2 <7). TypeScript 7 is the
// native compiler and has no such API, so dependency-cruiser sees no `.ts` files at all, and its
// acorn fallback cannot parse TypeScript syntax. Cruising the compiled JavaScript would miss every
// import used only as a type (the compiler erases them), and a type import is exactly how a
// transport -> breaker slip would look. So test/architecture.test.ts asks the TypeScript compiler
// itself which module every import in `src/` resolved to (`tsc --traceResolution`, same version
// and `nodenext` resolution as the build), writes a mirror of `src/` with one `import` line per
// resolved import (`src/x.ts` -> `src/x.js`), and cruises that mirror with these rules. That is
// why path patterns accept both `.ts` and `.js`.
//
// One rule lives in the test instead of here: built-ins are imported with the `node:` prefix.
// dependency-cruiser matches the resolved name, which is `net` for both `net` and `node:net`.

/** @type {Record<string, string>} where each layer's modules live */
const LAYER_PATHS = {
  foundation: String.raw`^src/(errors\.[jt]s$|util/)`,
  resp: '^src/resp/',
  transport: '^src/transport/',
  breaker: '^src/breaker/',
  client: '^src/client/',
  cluster: '^src/cluster/',
  sentinel: '^src/sentinel/',
  /** RespireClient and the router choice of its connect(), which failover members reuse. */
  connect: String.raw`^src/respire-client\.[jt]s$`,
  failover: '^src/failover/',
};

/** The public entry: above every layer. */
const ENTRY_POINT = String.raw`^src/index\.[jt]s$`;
/** Every module that has a place: the entry point and the layers. */
const LAYERED = [ENTRY_POINT, ...Object.values(LAYER_PATHS)];

/** @type {Array<{ layer: string, mayImport: string[], comment: string }>} */
const LAYERS = [
  {
    layer: 'foundation',
    mayImport: ['foundation'],
    comment: 'src/errors.ts and src/util/ are the bottom layer: they import only each other',
  },
  {
    layer: 'resp',
    mayImport: ['foundation', 'resp'],
    comment: 'src/resp/ may import only errors, util and resp',
  },
  {
    layer: 'transport',
    mayImport: ['foundation', 'resp', 'transport'],
    comment:
      'src/transport/ may import only errors, util, resp and transport; it declares the gate the breaker ' +
      'implements and never imports breaker',
  },
  {
    layer: 'breaker',
    mayImport: ['foundation', 'breaker'],
    comment: 'src/breaker/ ships alone as respire/breaker: it may import only errors, util and breaker',
  },
  {
    layer: 'client',
    mayImport: ['foundation', 'resp', 'transport', 'breaker', 'client'],
    comment: 'src/client/ may import only errors, util, resp, transport, breaker and client',
  },
  {
    layer: 'cluster',
    mayImport: ['foundation', 'resp', 'transport', 'breaker', 'client', 'cluster'],
    comment: 'src/cluster/ may import every layer below it but never sentinel',
  },
  {
    layer: 'sentinel',
    mayImport: ['foundation', 'resp', 'transport', 'breaker', 'client', 'sentinel'],
    comment: 'src/sentinel/ may import every layer below it but never cluster',
  },
  {
    layer: 'connect',
    mayImport: ['foundation', 'resp', 'transport', 'breaker', 'client', 'cluster', 'sentinel', 'connect'],
    comment: 'src/respire-client.ts chooses a router for the mode: it may import every layer but failover',
  },
  {
    layer: 'failover',
    mayImport: [
      'foundation',
      'resp',
      'transport',
      'breaker',
      'client',
      'cluster',
      'sentinel',
      'connect',
      'failover',
    ],
    comment: 'src/failover/ is a group of clients: it may import every layer, only src/index.ts imports it',
  },
];

/** @param {string} layer */
function layerPath(layer) {
  const path = LAYER_PATHS[layer];
  if (path === undefined) throw new Error(`unknown layer ${layer}`);
  return path;
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...LAYERS.map(({ layer, mayImport, comment }) => ({
      name: `layer-${layer}`,
      severity: 'error',
      comment,
      from: { path: layerPath(layer) },
      // Imports of modules outside every layer are the business of `unlayered-module` alone.
      to: { path: LAYERED, pathNot: mayImport.map(layerPath) },
    })),
    {
      name: 'unlayered-module',
      severity: 'error',
      comment:
        'every module under src/ that is imported belongs to a layer; a new directory gets its place ' +
        'in .dependency-cruiser.cjs first',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: LAYERED },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'no import cycles, type-only imports included (STYLE.md "Layers")',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'zero-runtime-dependencies',
      severity: 'error',
      comment: 'src/ imports only node: built-ins and other src/ files; packages are dev-only',
      from: { path: '^src/' },
      to: { pathNot: '^src/', dependencyTypesNot: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    moduleSystems: ['es6', 'cjs'],
    // The cruised mirror is plain JavaScript; there is nothing left for a TypeScript pre-pass.
    tsPreCompilationDeps: false,
  },
};
