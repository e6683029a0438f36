// The arrows of ARCHITECTURE.md, held by a tool: `npm test` runs `depcruise src` with these rules, and a
// wrong import fails it with the rule's name. Layers, top to bottom: process (cli.ts), CLI (main,
// program, context, commands, batch, history, progress, output, io, errors), the library's core (api,
// views, text), the store (store/: the port, its policy, the local implementation) and local state
// (config, state); the sandbox is off to the side.
/** Modules any layer may use: pure helpers with no terminal, config, state or process behind them. */
const NEUTRAL = '^src/(text|time|numbers|shell-quote|version)[.]ts$';
const CLI =
  '^src/((cli|main|program|context|deps|io|progress|client-hooks|errors|error-hints|prompt|interrupt|options)[.]ts|(commands|batch|history|output|program)/)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A cycle of value imports makes two modules one: neither can be read, tested or loaded alone (type-only imports and lazy import() do not count).',
      from: {},
      // program/ reaches every command by a lazy import(), so start-up loads only the one that runs; such an
      // edge ties no load order, and `rep completion` must read the program it completes (options stay data).
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only', 'dynamic-import'] } },
    },
    {
      name: 'core-knows-no-cli',
      severity: 'error',
      comment: 'The library (api/, views/, index.ts) prints nothing and reads no config, state or terminal: the CLI is built on it, never the reverse.',
      from: { path: '^src/(api/|views/|index[.]ts$)' },
      to: { path: [CLI, '^src/(config|state|sandbox)/'] },
    },
    {
      name: 'views-are-pure',
      severity: 'error',
      comment: 'A view is body -> typed record: it renders nothing and knows no transport details beyond the endpoint names.',
      from: { path: '^src/views/' },
      to: { path: '^src/(output|config|state|commands|batch|history)/|^src/api/(client|transport|http|undici|network-errors)[.]ts$' },
    },
    {
      name: 'output-renders-views',
      severity: 'error',
      comment: 'Renderers are pure functions of views (and an IO): no HTTP, no commands, no batches, no config or state.',
      from: { path: '^src/output/' },
      to: { path: '^src/(api|commands|batch|config|state|sandbox|program)/|^src/(context|progress|main|program)[.]ts$' },
    },
    {
      name: 'errors-print-nothing-else',
      severity: 'error',
      comment: 'errors.ts turns an error into a message, a hint and an exit code; it renders no output.',
      from: { path: '^src/(errors|error-hints)[.]ts$' },
      to: { path: '^src/(output|commands|batch|history|state|config)/' },
    },
    {
      name: 'state-below-the-cli',
      severity: 'error',
      comment: 'What rep remembers (config, state) serves the CLI and the library; it never reaches up into them.',
      from: { path: '^src/(config|state)/' },
      // errors.ts is where error kinds get their exit codes: state may throw them.
      to: { path: [CLI, '^src/(api/(client|transport|http|undici)[.]ts$|views/|sandbox/)'], pathNot: '^src/errors[.]ts$' },
    },
    {
      name: 'store-below-the-cli',
      severity: 'error',
      comment: 'The store (port, policy, implementations) serves the CLI and the library; it never reaches up into them.',
      from: { path: '^src/store/' },
      to: { path: [CLI, '^src/(api/(client|transport|http|undici)[.]ts$|views/|sandbox/)'], pathNot: '^src/errors[.]ts$' },
    },
    {
      name: 'store-port-is-types',
      severity: 'error',
      comment: 'port.ts is the interface every store fills in: it imports nothing, so any layer (api/ included) may name its types.',
      from: { path: '^src/store/port[.]ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'core-uses-the-port-not-a-store',
      severity: 'error',
      comment: 'The library core knows the port and the shared policy, never one implementation: a store is given to createClient.',
      from: { path: '^src/(api|views)/' },
      to: { path: '^src/store/', pathNot: '^src/store/(port|policy|answer-freshness)[.]ts$' },
    },
    {
      name: 'cli-opens-the-store-in-one-place',
      severity: 'error',
      comment:
        'Commands, batches and the history reach state through deps.store(); only context.ts opens the local store (and completion, which loads no context, its index).',
      from: { path: CLI, pathNot: '^src/(context[.]ts|commands/complete[.]ts)$' },
      to: { path: '^src/store/local/' },
    },
    {
      name: 'batch-and-history-use-no-context',
      severity: 'error',
      comment: 'Batches and the history take Deps; only main.ts builds the container (context.ts).',
      from: { path: '^src/(batch|history|output|commands)/' },
      to: { path: '^src/context[.]ts$' },
    },
    {
      name: 'sandbox-is-off-to-the-side',
      severity: 'error',
      comment: 'The sandbox serves the API over its own data set; it uses no CLI, config or state.',
      from: { path: '^src/sandbox/' },
      to: { path: [CLI, '^src/(config|state|api)/'] },
    },
    {
      name: 'only-the-entry-knows-the-process',
      severity: 'error',
      comment: 'cli.ts is the entry point; nothing imports it.',
      from: {},
      to: { path: '^src/cli[.]ts$' },
    },
    {
      name: 'neutral-modules-stay-neutral',
      severity: 'error',
      // Base URLs live in api/base-url.ts, not here: checking one throws the library's UsageError.
      comment: 'text, time, numbers, shell-quote and version are leaves every layer may use: they import nothing of rep but each other.',
      from: { path: NEUTRAL },
      to: { path: '^src/', pathNot: NEUTRAL },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|test|scripts)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
