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
