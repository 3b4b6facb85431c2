/** Layer rules of DESIGN.md: domain is pure, http never touches db, only main wires http, nothing imports main. */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports nothing of ours outside src/domain',
      severity: 'error',
      from: { path: '^src/domain' },
      to: { path: '^src/(?!domain)' },
    },
    {
      name: 'domain-no-io-modules',
      comment: 'src/domain does no I/O: no database, network or file system modules',
      severity: 'error',
      from: { path: '^src/domain' },
      to: {
        path: '^(pg|pg-boss|drizzle-orm|undici|fastify|node:fs|node:net|node:http|node:https|fs|net|http|https)$',
        dependencyTypes: ['npm', 'core'],
      },
    },
    {
      name: 'http-not-db',
      comment: 'routes call use cases; SQL lives in src/db',
      severity: 'error',
      from: { path: '^src/http' },
      to: { path: '^src/db' },
    },
    {
      name: 'only-main-imports-http',
      severity: 'error',
      from: { path: '^src/(?!main|http)' },
      to: { path: '^src/http' },
    },
    {
      name: 'nothing-imports-main',
      severity: 'error',
      from: { path: '^src/(?!main)' },
      to: { path: '^src/main' },
    },
    {
      name: 'db-not-app',
      comment: 'the store serves the use cases and never calls back into them',
      severity: 'error',
      from: { path: '^src/db' },
      to: { path: '^src/app' },
    },
    {
      name: 'platform-not-app',
      comment: 'platform is below every context: ports it implements live in platform too (metrics.ts)',
      severity: 'error',
      from: { path: '^src/platform' },
      to: { path: '^src/(app|db|workers|channels|simulators|http)' },
    },
    {
      name: 'app-only-the-job-catalogue',
      comment: 'use cases enqueue through the job catalogue (src/workers/jobs.ts) and never reach a worker',
      severity: 'error',
      from: { path: '^src/app' },
      to: { path: '^src/workers/', pathNot: '^src/workers/jobs[.]ts$' },
    },
    {
      name: 'simulators-behind-channels',
      comment:
        'a bank simulator (src/simulators) is reached only as a bank is: through a channel, wired by main (docs/adr/0054)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(main|channels|simulators)/' },
      to: { path: '^src/simulators/' },
    },
    {
      name: 'bank-files-one-door',
      comment:
        'a bank file reaches the journal only through src/app/bank-files/receive.ts (docs/adr/0054): its inner steps are private to the context',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/app/bank-files/' },
      to: {
        path: '^src/app/bank-files/(ingest|ingest-transaction|payment-status|payment-status-batch|statement-consumers|prepare-file|file-worker-thread)[.]ts$',
      },
    },
    {
      name: 'statement-consumers-through-bank-files',
      comment:
        'accounts and reconciliation read statements only as consumers of the bank-files context (statement-consumers.ts)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/app/bank-files/' },
      to: { path: '^src/app/(accounts/record-statement|recon/reconcile-statement|recon/record-unmatched)[.]ts$' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
