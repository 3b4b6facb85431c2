/**
 * A real SFTP server for tests (never used in production): ssh2's Server on 127.0.0.1 with a free port,
 * a host key generated at start, public-key and password authentication, serving a temporary directory.
 * It implements the SFTP requests the channel uses (REALPATH, STAT/LSTAT/FSTAT, OPEN/READ/WRITE/CLOSE,
 * OPENDIR/READDIR, RENAME, REMOVE, MKDIR, RMDIR, SETSTAT/FSETSTAT) with OpenSSH's semantics where they
 * matter: RENAME onto an existing name fails, READ at end of file answers EOF.
 *
 * Faults for tests: `server.injectFault({ op: 'READ', action: 'drop' })` ends the connection on the next
 * matching request; `action: 'stall'` never answers it (the client's timeouts must fire).
 */
import { createHash, generateKeyPairSync, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Attributes, AuthContext, Connection, FileEntry, ParsedKey, SFTPWrapper } from 'ssh2';
import ssh2 from 'ssh2';

const { Server, utils } = ssh2;
const { STATUS_CODE } = utils.sftp;

type SftpOp = 'OPEN' | 'READ' | 'WRITE' | 'CLOSE' | 'STAT' | 'LSTAT' | 'OPENDIR' | 'READDIR' | 'RENAME' | 'REMOVE';
type Fault = { op: SftpOp; action: 'drop' | 'stall' };

export type TestSftpServer = {
  host: string;
  port: number;
  /** OpenSSH-style fingerprint of the generated host key, `SHA256:<base64 without padding>`. */
  hostKeySha256: string;
  /** The served directory on the local disk; SFTP path `/x` is `<root>/x`. */
  root: string;
  /** Local path of an SFTP path. */
  local(sftpPath: string): string;
  injectFault(fault: Fault): void;
  /** Connections accepted so far (authenticated or not). */
  readonly connectionCount: number;
  close(): Promise<void>;
};

export type SftpServerOptions = {
  username: string;
  password?: string;
  /** An OpenSSH public key line (`ssh-ed25519 AAAA...`) or a private key whose public half is allowed. */
  authorizedKey?: string;
  /** Folders created under the root at start, e.g. ['inbound', 'outbound', 'archive']. */
  dirs?: string[];
};

/** A generated RSA key in the PEM (PKCS#1) form ssh2 reads, with its OpenSSH public line. */
export function generateSshKey(): { privateKey: string; publicKey: string } {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const parsed = parseOrThrow(privateKey);
  return { privateKey, publicKey: `${parsed.type} ${parsed.getPublicSSH().toString('base64')}` };
}

export async function startSftpServer(options: SftpServerOptions): Promise<TestSftpServer> {
  const root = mkdtempSync(path.join(tmpdir(), 'payops-sftp-'));
  for (const dir of options.dirs ?? []) await fs.mkdir(path.join(root, dir), { recursive: true });
  const hostKey = generateSshKey();
  const hostPublic = parseOrThrow(hostKey.privateKey).getPublicSSH();
  const allowedKey = options.authorizedKey ? parseOrThrow(options.authorizedKey) : undefined;
  const faults: Fault[] = [];
  const connections = new Set<Connection>();
  let connectionCount = 0;

  const local = (sftpPath: string): string => path.join(root, path.posix.resolve('/', sftpPath));

  const server = new Server({ hostKeys: [hostKey.privateKey] }, (conn) => {
    connectionCount++;
    connections.add(conn);
    (conn as Connection & { setNoDelay(noDelay: boolean): void }).setNoDelay(true);
    conn.on('close', () => connections.delete(conn));
    conn.on('error', () => {});
    conn.on('authentication', (ctx) => authenticate(ctx, options, allowedKey));
    conn.on('ready', () => {
      conn.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('sftp', (acceptSftp) => serveSftp(acceptSftp(), conn, local, faults));
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('SFTP test server has no TCP address');

  return {
    host: '127.0.0.1',
    port: address.port,
    hostKeySha256: `SHA256:${createHash('sha256').update(hostPublic).digest('base64').replace(/=+$/, '')}`,
    root,
    local,
    injectFault: (fault) => faults.push(fault),
    get connectionCount() {
      return connectionCount;
    },
    close: async () => {
      for (const conn of connections) conn.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function parseOrThrow(key: string): ParsedKey {
  const parsed = utils.parseKey(key);
  if (parsed instanceof Error) throw parsed;
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!first) throw new Error('no key parsed');
  return first;
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function authenticate(ctx: AuthContext, options: SftpServerOptions, allowedKey: ParsedKey | undefined): void {
  const methods: Array<'password' | 'publickey'> = [];
  if (options.password !== undefined) methods.push('password');
  if (allowedKey) methods.push('publickey');
  if (isAllowed(ctx, options, allowedKey)) ctx.accept();
  else ctx.reject(methods);
}

function isAllowed(ctx: AuthContext, options: SftpServerOptions, allowedKey: ParsedKey | undefined): boolean {
  if (ctx.username !== options.username) return false;
  if (ctx.method === 'password' && options.password !== undefined) {
    return sameBytes(Buffer.from(ctx.password), Buffer.from(options.password));
  }
  if (ctx.method === 'publickey' && allowedKey) {
    if (!sameBytes(ctx.key.data, allowedKey.getPublicSSH())) return false;
    // Without a signature the client only asks whether the key would do; with one, it must verify.
    return !(ctx.signature && ctx.blob) || allowedKey.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true;
  }
  return false;
}

type OpenHandle = { kind: 'file'; file: fs.FileHandle } | { kind: 'dir'; dir: string; sent: boolean };

function serveSftp(sftp: SFTPWrapper, conn: Connection, local: (p: string) => string, faults: Fault[]): void {
  const handles = new Map<number, OpenHandle>();
  let nextHandle = 1;
  const newHandle = (h: OpenHandle): Buffer => {
    const id = nextHandle++;
    handles.set(id, h);
    const buf = Buffer.alloc(4);
    buf.writeUInt32BE(id);
    return buf;
  };
  const lookupHandle = (buf: Buffer): OpenHandle | undefined =>
    buf.length === 4 ? handles.get(buf.readUInt32BE(0)) : undefined;

  /** Runs a request handler, answering with the matching SFTP status when it throws. */
  const handle = (op: SftpOp, reqId: number, work: () => Promise<void>): void => {
    const index = faults.findIndex((f) => f.op === op);
    if (index >= 0) {
      const [fault] = faults.splice(index, 1);
      if (fault?.action === 'drop') conn.end();
      return; // 'stall': never answer
    }
    work().catch((err: NodeJS.ErrnoException) => sftp.status(reqId, statusFor(err), err.code ?? 'failure'));
  };

  sftp.on('REALPATH', (reqId, p) => {
    const resolved = path.posix.resolve('/', p);
    sftp.name(reqId, [{ filename: resolved, longname: resolved, attrs: {} as Attributes }]);
  });
  sftp.on('STAT', (reqId, p) => handle('STAT', reqId, async () => sftp.attrs(reqId, toAttrs(await fs.stat(local(p))))));
  sftp.on('LSTAT', (reqId, p) =>
    handle('LSTAT', reqId, async () => sftp.attrs(reqId, toAttrs(await fs.lstat(local(p))))),
  );
  sftp.on('FSTAT', (reqId, h) => {
    const open = lookupHandle(h);
    if (open?.kind !== 'file') return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
    open.file.stat().then(
      (st) => sftp.attrs(reqId, toAttrs(st)),
      () => sftp.status(reqId, STATUS_CODE.FAILURE),
    );
  });
  sftp.on('OPEN', (reqId, filename, flags) =>
    handle('OPEN', reqId, async () => {
      const mode = utils.sftp.flagsToString(flags);
      if (mode === null) return sftp.status(reqId, STATUS_CODE.OP_UNSUPPORTED, 'unsupported open flags');
      const file = await fs.open(local(filename), mode);
      sftp.handle(reqId, newHandle({ kind: 'file', file }));
    }),
  );
  sftp.on('READ', (reqId, h, offset, length) =>
    handle('READ', reqId, async () => {
      const open = lookupHandle(h);
      if (open?.kind !== 'file') return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await open.file.read(buffer, 0, length, offset);
      if (bytesRead === 0) return sftp.status(reqId, STATUS_CODE.EOF);
      sftp.data(reqId, buffer.subarray(0, bytesRead));
    }),
  );
  sftp.on('WRITE', (reqId, h, offset, data) =>
    handle('WRITE', reqId, async () => {
      const open = lookupHandle(h);
      if (open?.kind !== 'file') return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
      await open.file.write(data, 0, data.length, offset);
      sftp.status(reqId, STATUS_CODE.OK);
    }),
  );
  sftp.on('CLOSE', (reqId, h) =>
    handle('CLOSE', reqId, async () => {
      const open = lookupHandle(h);
      if (!open) return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
      handles.delete(h.readUInt32BE(0));
      if (open.kind === 'file') await open.file.close();
      sftp.status(reqId, STATUS_CODE.OK);
    }),
  );
  sftp.on('OPENDIR', (reqId, p) =>
    handle('OPENDIR', reqId, async () => {
      const dir = local(p);
      if (!(await fs.stat(dir)).isDirectory()) return sftp.status(reqId, STATUS_CODE.FAILURE, 'not a directory');
      sftp.handle(reqId, newHandle({ kind: 'dir', dir, sent: false }));
    }),
  );
  sftp.on('READDIR', (reqId, h) =>
    handle('READDIR', reqId, async () => {
      const open = lookupHandle(h);
      if (open?.kind !== 'dir') return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
      if (open.sent) return sftp.status(reqId, STATUS_CODE.EOF);
      open.sent = true;
      const names: FileEntry[] = [];
      for (const name of await fs.readdir(open.dir)) {
        const st = await fs.lstat(path.join(open.dir, name));
        names.push({ filename: name, longname: name, attrs: toAttrs(st) });
      }
      if (names.length === 0) return sftp.status(reqId, STATUS_CODE.EOF);
      sftp.name(reqId, names);
    }),
  );
  sftp.on('RENAME', (reqId, from, to) =>
    handle('RENAME', reqId, async () => {
      // SFTP v3 / OpenSSH: refuse to replace an existing file.
      const exists = await fs.lstat(local(to)).then(
        () => true,
        () => false,
      );
      if (exists) return sftp.status(reqId, STATUS_CODE.FAILURE, 'target exists');
      await fs.rename(local(from), local(to));
      sftp.status(reqId, STATUS_CODE.OK);
    }),
  );
  sftp.on('REMOVE', (reqId, p) =>
    handle('REMOVE', reqId, async () => {
      await fs.unlink(local(p));
      sftp.status(reqId, STATUS_CODE.OK);
    }),
  );
  sftp.on('MKDIR', (reqId, p) => {
    fs.mkdir(local(p)).then(
      () => sftp.status(reqId, STATUS_CODE.OK),
      (err: NodeJS.ErrnoException) => sftp.status(reqId, statusFor(err)),
    );
  });
  sftp.on('RMDIR', (reqId, p) => {
    fs.rmdir(local(p)).then(
      () => sftp.status(reqId, STATUS_CODE.OK),
      (err: NodeJS.ErrnoException) => sftp.status(reqId, statusFor(err)),
    );
  });
  sftp.on('SETSTAT', (reqId) => sftp.status(reqId, STATUS_CODE.OK));
  sftp.on('FSETSTAT', (reqId) => sftp.status(reqId, STATUS_CODE.OK));
  sftp.on('close', () => {
    for (const open of handles.values()) if (open.kind === 'file') void open.file.close().catch(() => {});
    handles.clear();
  });
}

function statusFor(err: NodeJS.ErrnoException): number {
  if (err.code === 'ENOENT') return STATUS_CODE.NO_SUCH_FILE;
  if (err.code === 'EACCES' || err.code === 'EPERM') return STATUS_CODE.PERMISSION_DENIED;
  return STATUS_CODE.FAILURE;
}

function toAttrs(st: { mode: number; uid: number; gid: number; size: number; atimeMs: number; mtimeMs: number }) {
  return {
    mode: st.mode,
    uid: st.uid,
    gid: st.gid,
    size: st.size,
    atime: Math.floor(st.atimeMs / 1000),
    mtime: Math.floor(st.mtimeMs / 1000),
  };
}
