/**
 * A three-node PostgreSQL 15 cluster managed by Patroni on this one machine, for `npm run
 * bench:failover`: one etcd member (the leader key and the cluster's dynamic configuration), three
 * Patroni agents each with its PostgreSQL, and HAProxy in front routing to whichever member answers
 * Patroni's `GET /primary` with 200. Everything lives in one temp folder and on ports of its own
 * (PostgreSQL 25431-25433, Patroni REST 28001-28003, etcd 23791/23801, HAProxy 25000), so the
 * machine's own PostgreSQL on 5432 is never touched. PostgreSQL refuses to run as root, so Patroni
 * (and with it PostgreSQL) runs as the `postgres` user.
 *
 * Debian packages (bookworm): patroni, python3-etcd, etcd-server, etcd-client, haproxy, and
 * PostgreSQL 15's server binaries in /usr/lib/postgresql/15/bin (postgresql-15).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const PG_BIN = process.env.FAILOVER_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const ETCD_CLIENT = 23791;
const ETCD_PEER = 23801;
const HAPROXY_PORT = 25000;
const HAPROXY_STATS = 25080;
const NODES = [1, 2, 3].map((n) => ({ name: `pg${n}`, pgPort: 25430 + n, restPort: 28000 + n }));
const PASSWORD = 'failover-bench';

export type Member = { name: string; role: string; state: string; lag?: number | string; timeline?: number };
export type NodeName = string;

function uidOf(user: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', user]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', user]).toString().trim());
  return { uid, gid };
}

/** The Patroni configuration of one member; the `bootstrap.dcs` part is written to etcd once. */
function patroniYaml(root: string, node: (typeof NODES)[number], synchronous: boolean): string {
  return `scope: payops-failover
name: ${node.name}
log:
  level: INFO
restapi:
  listen: 127.0.0.1:${node.restPort}
  connect_address: 127.0.0.1:${node.restPort}
# etcd's v2 API, not etcd3: Patroni 3.0.2's etcd3 code (Debian bookworm) renews the leader key with an
# unconditional put when its cached view is stale, so a primary frozen past its ttl and then resumed
# took the key back from the promoted standby, which was then rewound: bench:failover lost 212
# acknowledged payments that way. The v2 code renews with compare-and-swap (prevValue = own name).
etcd:
  hosts: 127.0.0.1:${ETCD_CLIENT}
bootstrap:
  dcs:
    # Patroni's defaults, written out: the leader key lives 30 s, each agent loops every 10 s.
    ttl: 30
    loop_wait: 10
    retry_timeout: 10
    maximum_lag_on_failover: 1048576
    # A crashed primary is failed over at once instead of restarted in place: in synchronous mode
    # the synchronous standby has every commit, so this loses nothing (Patroni's documentation).
    master_start_timeout: 0
    synchronous_mode: ${synchronous}
    synchronous_mode_strict: false
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        synchronous_commit: 'on'
        max_connections: 200
        wal_log_hints: 'on'
        wal_keep_size: 256MB
        max_wal_senders: 10
        max_replication_slots: 10
        hot_standby: 'on'
        shared_buffers: 128MB
        fsync: 'on'
  initdb:
    - encoding: UTF8
    - data-checksums
    - auth: trust
postgresql:
  listen: 127.0.0.1:${node.pgPort}
  connect_address: 127.0.0.1:${node.pgPort}
  data_dir: ${path.join(root, node.name, 'data')}
  bin_dir: ${PG_BIN}
  pgpass: ${path.join(root, node.name, 'pgpass')}
  authentication:
    superuser:
      username: postgres
      password: ${PASSWORD}
    replication:
      username: replicator
      password: ${PASSWORD}
    rewind:
      username: postgres
      password: ${PASSWORD}
  pg_hba:
    - local all all trust
    - host replication replicator 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
  parameters:
    unix_socket_directories: '${path.join(root, node.name)}'
tags:
  nofailover: false
  noloadbalance: false
  clonefrom: false
`;
}

/** HAProxy: one frontend for the primary, health-checked on Patroni's REST API (docs/operations.md). */
function haproxyCfg(): string {
  return `global
    maxconn 2000
defaults
    mode tcp
    log global
    retries 2
    timeout queue 1m
    timeout connect 4s
    timeout client 30m
    timeout server 30m
    timeout check 2s
listen stats
    mode http
    bind 127.0.0.1:${HAPROXY_STATS}
    stats enable
    stats uri /
listen primary
    bind 127.0.0.1:${HAPROXY_PORT}
    option httpchk GET /primary
    http-check expect status 200
    default-server inter 2s fall 2 rise 1 on-marked-down shutdown-sessions
${NODES.map((n) => `    server ${n.name} 127.0.0.1:${n.pgPort} maxconn 500 check port ${n.restPort}`).join('\n')}
`;
}

export type Cluster = {
  root: string;
  /** postgres://… through HAProxy, to the database `name`. */
  urlOf(name: string): string;
  /** The member Patroni calls the leader now, if any. */
  members(): Promise<Member[]>;
  primary(): Promise<NodeName | undefined>;
  /** SIGKILL the postmaster of `node` (its backends end when they notice, Patroni acts on its next loop). */
  killPostmaster(node: NodeName): number;
  /** SIGSTOP the node's Patroni and every PostgreSQL process of it: a frozen or cut-off host. */
  freeze(node: NodeName): void;
  thaw(node: NodeName): void;
  /** Until three members run, one is leader and (synchronous mode) one is synchronous, all streaming. */
  waitHealthy(timeoutMs?: number): Promise<Member[]>;
  log(node: NodeName, lines?: number): string;
  stop(): Promise<void>;
};

async function waitFor<T>(
  check: () => Promise<T | undefined>,
  what: string,
  timeoutMs: number,
  everyMs = 250,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

function postmasterPid(dataDir: string): number | undefined {
  const file = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Every process below `pid` (PostgreSQL's backends and auxiliary processes below the postmaster). */
function descendants(pid: number): number[] {
  const out = execFileSync('ps', ['-e', '-o', 'pid=,ppid=']).toString();
  const children = new Map<number, number[]>();
  for (const line of out.trim().split('\n')) {
    const [p, pp] = line.trim().split(/\s+/).map(Number) as [number, number];
    children.set(pp, [...(children.get(pp) ?? []), p]);
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      found.push(c);
      walk(c);
    }
  };
  walk(pid);
  return found;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Gone already.
  }
}

export async function startCluster(options: { synchronous: boolean; tmp: string }): Promise<Cluster> {
  const root = mkdtempSync(path.join(options.tmp, 'payops-failover-'));
  const owner = process.getuid?.() === 0 ? uidOf('postgres') : undefined;
  const asOwner = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const children: ChildProcess[] = [];
  const agents = new Map<NodeName, ChildProcess>();
  const own = (p: string) => {
    if (owner) chownSync(p, owner.uid, owner.gid);
  };
  own(root);
  const spawnLogged = (name: string, cmd: string, args: string[], uidGid: object) => {
    const out = openSync(path.join(root, `${name}.log`), 'a');
    const child = spawn(cmd, args, {
      cwd: root,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, LANG: 'C.UTF-8' },
      stdio: ['ignore', out, out],
      ...uidGid,
    });
    children.push(child);
    return child;
  };

  spawnLogged(
    'etcd',
    'etcd',
    [
      '--name',
      'etcd1',
      '--data-dir',
      path.join(root, 'etcd'),
      '--listen-client-urls',
      `http://127.0.0.1:${ETCD_CLIENT}`,
      '--advertise-client-urls',
      `http://127.0.0.1:${ETCD_CLIENT}`,
      '--listen-peer-urls',
      `http://127.0.0.1:${ETCD_PEER}`,
      '--initial-advertise-peer-urls',
      `http://127.0.0.1:${ETCD_PEER}`,
      '--initial-cluster',
      `etcd1=http://127.0.0.1:${ETCD_PEER}`,
      '--initial-cluster-state',
      'new',
      '--enable-v2=true',
    ],
    asOwner,
  );
  await waitFor(
    async () => ((await fetch(`http://127.0.0.1:${ETCD_CLIENT}/health`)).ok ? true : undefined),
    'etcd',
    30_000,
  );

  for (const node of NODES) {
    const dir = path.join(root, node.name);
    mkdirSync(dir, { mode: 0o700 });
    own(dir);
    const cfg = path.join(dir, 'patroni.yml');
    writeFileSync(cfg, patroniYaml(root, node, options.synchronous));
    own(cfg);
    agents.set(node.name, spawnLogged(node.name, '/usr/bin/patroni', [cfg], asOwner));
    if (node === NODES[0]) {
      // The first member bootstraps (initdb) alone; the others then clone it with pg_basebackup.
      await waitFor(
        async () => ((await fetch(`http://127.0.0.1:${node.restPort}/primary`)).status === 200 ? true : undefined),
        'the first member to bootstrap',
        120_000,
      );
    }
  }
  const cfg = path.join(root, 'haproxy.cfg');
  writeFileSync(cfg, haproxyCfg());
  spawnLogged('haproxy', 'haproxy', ['-f', cfg, '-db'], {});

  const dataDirOf = (node: NodeName) => path.join(root, node, 'data');
  const members = async (): Promise<Member[]> => {
    for (const n of NODES) {
      try {
        const res = await fetch(`http://127.0.0.1:${n.restPort}/cluster`, { signal: AbortSignal.timeout(1500) });
        if (res.ok) return ((await res.json()) as { members: Member[] }).members;
      } catch {
        // This member's agent is down or frozen: ask the next.
      }
    }
    return [];
  };
  const processesOf = (node: NodeName): number[] => {
    const agent = agents.get(node)?.pid;
    const postmaster = postmasterPid(dataDirOf(node));
    return [...(agent ? [agent] : []), ...(postmaster ? [postmaster, ...descendants(postmaster)] : [])];
  };

  const cluster: Cluster = {
    root,
    urlOf: (name) => `postgres://postgres:${PASSWORD}@127.0.0.1:${HAPROXY_PORT}/${name}`,
    members,
    async primary() {
      for (const n of NODES) {
        try {
          const res = await fetch(`http://127.0.0.1:${n.restPort}/primary`, { signal: AbortSignal.timeout(1000) });
          if (res.status === 200) return n.name;
        } catch {
          // Down or frozen.
        }
      }
      return undefined;
    },
    killPostmaster(node) {
      const pid = postmasterPid(dataDirOf(node));
      if (!pid) throw new Error(`${node}: no postmaster.pid`);
      process.kill(pid, 'SIGKILL');
      return pid;
    },
    freeze(node) {
      // The agent first, so it cannot notice its PostgreSQL stopping and act on it.
      for (const pid of processesOf(node)) signal(pid, 'SIGSTOP');
    },
    thaw(node) {
      for (const pid of processesOf(node)) signal(pid, 'SIGCONT');
    },
    async waitHealthy(timeoutMs = 180_000) {
      return waitFor(
        async () => {
          const list = await members();
          const running = list.filter((m) => m.state === 'running' || m.state === 'streaming');
          const leaders = list.filter((m) => m.role === 'leader');
          const sync = list.filter((m) => m.role === 'sync_standby');
          const lagging = list.some((m) => m.role !== 'leader' && (typeof m.lag !== 'number' || m.lag > 1_048_576));
          if (running.length !== 3 || leaders.length !== 1 || lagging) return undefined;
          if (options.synchronous && sync.length === 0) return undefined;
          // HAProxy routes to it (its check runs every 2 s).
          const haproxy = await fetch(`http://127.0.0.1:${HAPROXY_STATS}/;csv`).then((r) => r.text());
          const up = haproxy
            .split('\n')
            .filter((l) => l.startsWith('primary,pg'))
            .filter((l) => l.split(',')[17] === 'UP')
            .map((l) => l.split(',')[1]);
          if (up.length !== 1 || up[0] !== leaders[0]!.name) return undefined;
          return list;
        },
        'a healthy cluster',
        timeoutMs,
        500,
      );
    },
    log(node, lines = 40) {
      const file = path.join(root, `${node}.log`);
      if (!existsSync(file)) return '';
      return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
    },
    async stop() {
      for (const n of NODES) cluster.thaw(n.name);
      const postmasters = NODES.map((n) => postmasterPid(dataDirOf(n.name))).filter((p): p is number => !!p);
      // Patroni first (SIGTERM stops its PostgreSQL fast), then whatever is left.
      for (const agent of agents.values()) agent.kill('SIGTERM');
      await Promise.race([
        Promise.all(
          [...agents.values()].map((a) =>
            a.exitCode !== null || a.signalCode !== null ? undefined : new Promise((r) => a.once('exit', r)),
          ),
        ),
        new Promise((r) => setTimeout(r, 20_000)),
      ]);
      for (const pid of postmasters) {
        for (const d of descendants(pid)) signal(d, 'SIGKILL');
        signal(pid, 'SIGKILL');
      }
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 300));
      if (process.env.FAILOVER_KEEP !== '1') rmSync(root, { recursive: true, force: true });
    },
  };
  return cluster;
}
