import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * A new, empty database on the server of `adminUrl` (a run's own, so one benchmark never reads
 * another's rows), and how to drop it. BENCH_KEEP_DB=1 leaves it in place for inspection (EXPLAIN,
 * pg_stat_*) and prints its name instead.
 */
export async function freshDatabase(adminUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      if (process.env.BENCH_KEEP_DB === '1') {
        process.stdout.write(`  database kept: ${name}\n`);
        return;
      }
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
