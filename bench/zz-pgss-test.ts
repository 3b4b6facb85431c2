import pg from 'pg';
import { startProfiledPostgres } from '/work/wt/s48-perf/bench/support/profiled-postgres.ts';

const p = await startProfiledPostgres();
const c = new pg.Client({ connectionString: p.url });
await c.connect();
await c.query('CREATE EXTENSION pg_stat_statements');
await c.query(`ALTER SYSTEM SET pg_stat_statements.track = 'all'`);
await c.query('SELECT pg_reload_conf()');
await new Promise((r) => setTimeout(r, 500));
console.log((await c.query('SHOW pg_stat_statements.track')).rows);
await c.query('SELECT 1+1');
console.log((await c.query('SELECT query, calls, dbid, toplevel FROM pg_stat_statements')).rows);
await c.end();
await p.stop();
