import { createHash, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import type { Attributes, Client, ConnectConfig, FileEntryWithStats, SFTPWrapper } from 'ssh2';
import ssh2 from 'ssh2';
import { resolveChecked, SsrfError } from '../platform/ssrf-guard.ts';
import type { BankChannel, DeliveryReceipt, InboundFile, OutboundFile } from './channel.ts';
import { ChannelError } from './errors.ts';

/**
 * SFTP host-to-host channel (issue 6, domain.md §1.2): we upload payment files into the bank's inbound
 * folder and poll its outbound folder for pain.002 status reports and statements.
 *
 * Connections: one SSH connection per call (deliver, fetchInbound, acknowledge), closed when the call
 * ends. Bank SFTP traffic is a handful of files per poll, so a handshake per call costs little and there
 * is no idle session to keep alive, no half-dead connection to detect and no reconnect state. Every call
 * has a deadline (`operationTimeoutMs`); SSH keepalives detect a peer that goes silent.
 *
 * Security:
 * - The server's host key is pinned (`hostKeySha256`, the `SHA256:...` fingerprint the bank gives,
 *   or 64 hex digits); a different key is refused before authentication. Never trust on first use.
 * - Credentials (password, private key, passphrase) never appear in errors or logs; errors name only
 *   host, port, user name and remote paths.
 * - The host is resolved once by the platform's SSRF guard (src/platform/ssrf-guard.ts, the same rule
 *   as webhooks and web services) and refused when it is a private, loopback, link-local or metadata
 *   address in any form, unless `allowPrivateNetwork` is set (tests, on-premise banks); the connection
 *   goes to the checked address.
 * - Remote names are plain file names (no separators, no `..`, no leading dot).
 *
 * Delivery is atomic and idempotent on `fileName`: the content goes to `<fileName>.part` and is renamed
 * to `<fileName>`, so the bank never sees half a file; when `<fileName>` already exists with the same
 * bytes the receipt says `alreadyDelivered` and nothing is uploaded; different bytes under the same
 * name are refused (never overwritten). A bank that moves files out of its inbound folder on pickup
 * cannot be asked whether it saw a file: a retry after that pickup uploads again, and the bank's own
 * duplicate check on the message id is the last line of defence.
 */
export type SftpChannelConfig = {
  host: string;
  port?: number;
  username: string;
  /** OpenSSH or PEM private key; with `passphrase` when encrypted. */
  privateKey?: string;
  passphrase?: string;
  password?: string;
  /** Pinned SHA-256 fingerprint of the bank's host key: `SHA256:<base64>` or hex. */
  hostKeySha256: string;
  /** The bank's "in" folder: where our payment files go. */
  inboundDir: string;
  /** The bank's "out" folder: where it writes pain.002 and statements for us. */
  outboundDir: string;
  /** Where acknowledged files are moved; without it they are deleted. */
  archiveDir?: string;
  /** TCP connect plus SSH handshake and authentication (default 15 s). */
  connectTimeoutMs?: number;
  /** Deadline for a whole call, connection included (default 120 s). */
  operationTimeoutMs?: number;
  /** SSH keepalive interval (default 10 s; 3 unanswered end the connection). */
  keepaliveIntervalMs?: number;
  /** Largest inbound file fetched (default 64 MiB); larger ones are left in place and logged. */
  maxFileBytes?: number;
  /** Most files returned by one fetchInbound (default 100, oldest first). */
  maxFilesPerFetch?: number;
  /** Allow private, loopback and link-local addresses (tests, banks reached over a private link). */
  allowPrivateNetwork?: boolean;
  logger?: { warn(obj: object, msg: string): void };
};

type SftpErrorCode =
  | 'invalid_config'
  | 'invalid_file_name'
  | 'address_refused'
  | 'host_key_mismatch'
  | 'auth_failed'
  | 'timeout'
  | 'connection_failed'
  | 'connection_lost'
  | 'conflict'
  | 'too_large'
  | 'missing_folder'
  | 'closed'
  | 'remote_error';

/** Errors carry a code and whether a retry can help (a wrong host key or password will not heal itself). */
class SftpChannelError extends ChannelError {
  declare readonly code: SftpErrorCode;
  constructor(code: SftpErrorCode, message: string, retryable: boolean, options?: { cause?: unknown }) {
    super(code, message, retryable, options);
    this.name = 'SftpChannelError';
  }
}

const DEFAULTS = {
  port: 22,
  connectTimeoutMs: 15_000,
  operationTimeoutMs: 120_000,
  keepaliveIntervalMs: 10_000,
  maxFileBytes: 64 * 1024 * 1024,
  maxFilesPerFetch: 100,
};
/** Bytes per SFTP READ/WRITE request: every server accepts 32 KiB. */
const CHUNK = 32 * 1024;
const STATUS_NO_SUCH_FILE = 2;
// ssh2 is CommonJS whose exports node cannot list statically: take them from the default export.
const { Client: SshClient, utils } = ssh2;
const MAX_ARCHIVE_SUFFIX = 1000;

export function createSftpChannel(config: SftpChannelConfig): BankChannel {
  const t = targetOf(config);
  const active = new Set<Client>();
  let closed = false;

  /** Opens a connection, runs `work` on its SFTP session within the deadline, always closes it. */
  async function withSftp<T>(what: string, work: (sftp: SFTPWrapper) => Promise<T>): Promise<T> {
    if (closed) throw new SftpChannelError('closed', 'SFTP channel is closed', false);
    const client = new SshClient();
    active.add(client);
    let timer: NodeJS.Timeout | undefined;
    try {
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(
            new SftpChannelError(
              'timeout',
              `SFTP ${what} at ${t.where} timed out after ${t.settings.operationTimeoutMs} ms`,
              true,
            ),
          );
        }, t.settings.operationTimeoutMs);
      });
      // The session promise also rejects when the connection drops mid-call (see `lost`).
      const run = async () => {
        const address = await resolveAddress(config.host, config.allowPrivateNetwork === true);
        const { sftp, lost } = await openSession(t, client, address);
        return await Promise.race([work(sftp), lost]);
      };
      return await Promise.race([run(), deadline]);
    } finally {
      clearTimeout(timer);
      active.delete(client);
      client.end();
      // end() waits for the peer; a stalled peer must not keep the socket (and the process) alive.
      setTimeout(() => client.destroy(), 1000).unref();
    }
  }

  async function deliver(file: OutboundFile): Promise<DeliveryReceipt> {
    const name = checkFileName(file.fileName);
    return withSftp(`upload of ${name}`, (sftp) => deliverOn(t, sftp, name, Buffer.from(file.content, 'utf8')));
  }

  async function fetchInbound(): Promise<InboundFile[]> {
    return withSftp(`listing of ${config.outboundDir}`, (sftp) => fetchOn(t, sftp));
  }

  async function acknowledge(file: InboundFile): Promise<void> {
    const name = checkFileName(file.name);
    await withSftp(`acknowledgement of ${name}`, (sftp) => acknowledgeOn(t, sftp, name));
  }

  /**
   * One connection as a delivery would make it (address guard, host key against the pin,
   * authentication, SFTP subsystem) and a look at both folders: what saving the settings tries.
   */
  async function check(): Promise<void> {
    await withSftp('connection check', (sftp) => checkFolders(t, sftp));
  }

  async function close(): Promise<void> {
    closed = true;
    for (const client of active) client.destroy();
    active.clear();
  }

  return { kind: 'sftp', deliver, fetchInbound, acknowledge, check, close };
}

/** A checked configuration with its defaults, the pinned host key and the `user@host:port` for messages. */
type SftpTarget = {
  config: SftpChannelConfig;
  pinned: Buffer;
  port: number;
  settings: {
    connectTimeoutMs: number;
    operationTimeoutMs: number;
    keepaliveIntervalMs: number;
    maxFileBytes: number;
    maxFilesPerFetch: number;
  };
  where: string;
};

/** Checks the configuration at configuration time, not on the first delivery. */
function targetOf(config: SftpChannelConfig): SftpTarget {
  const pinned = parseFingerprint(config.hostKeySha256);
  if (!config.host || !config.username) throw invalid('host and username are required');
  if (config.password === undefined && config.privateKey === undefined) {
    throw invalid('a private key or a password is required');
  }
  if (config.privateKey !== undefined) {
    // The key itself never goes into the message.
    const parsed = utils.parseKey(config.privateKey, config.passphrase);
    if (parsed instanceof Error) throw invalid('privateKey is not a usable SSH private key (or wrong passphrase)');
  }
  for (const [name, dir] of [
    ['inboundDir', config.inboundDir],
    ['outboundDir', config.outboundDir],
    ['archiveDir', config.archiveDir],
  ] as const) {
    if (dir !== undefined && (dir.length === 0 || dir.includes('\0'))) throw invalid(`${name} is not a valid path`);
  }
  const port = config.port ?? DEFAULTS.port;
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw invalid('port must be 1..65535');
  const settings = {
    connectTimeoutMs: config.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
    operationTimeoutMs: config.operationTimeoutMs ?? DEFAULTS.operationTimeoutMs,
    keepaliveIntervalMs: config.keepaliveIntervalMs ?? DEFAULTS.keepaliveIntervalMs,
    maxFileBytes: config.maxFileBytes ?? DEFAULTS.maxFileBytes,
    maxFilesPerFetch: config.maxFilesPerFetch ?? DEFAULTS.maxFilesPerFetch,
  };
  return { config, pinned, port, settings, where: `${config.username}@${config.host}:${port}` };
}

/** Connects `client` to `address` and opens its SFTP subsystem; `lost` rejects when either drops later. */
function openSession(
  t: SftpTarget,
  client: Client,
  address: string,
): Promise<{ sftp: SFTPWrapper; lost: Promise<never> }> {
  return new Promise((resolve, reject) => {
    let presented: Buffer | undefined;
    let ready = false;
    let rejectLost: (err: Error) => void = () => {};
    const lost = new Promise<never>((_, r) => {
      rejectLost = r;
    });
    lost.catch(() => {});
    const fail = (err: Error) => {
      if (ready) rejectLost(err);
      else reject(err);
    };
    client.on('error', (err: Error & { level?: string; code?: string }) =>
      fail(sessionError(t, err, presented, ready)),
    );
    client.on('close', () => {
      fail(new SftpChannelError('connection_lost', `SFTP connection to ${t.where} closed by the server`, true));
    });
    client.on('ready', () => {
      client.sftp((err, sftp) => {
        if (err) {
          reject(new SftpChannelError('connection_failed', `SFTP subsystem refused at ${t.where}`, true));
          return;
        }
        ready = true;
        sftp.on('error', (e: Error) => rejectLost(remoteError(`session at ${t.where}`, e)));
        sftp.on('close', () => {
          rejectLost(new SftpChannelError('connection_lost', `SFTP session at ${t.where} closed by the server`, true));
        });
        resolve({ sftp, lost });
      });
    });
    client.connect(
      connectOptions(t, address, (key) => {
        presented = key;
      }),
    );
    // SFTP is request/response with small packets: without TCP_NODELAY every round trip waits for a delayed ACK.
    client.setNoDelay(true);
  });
}

/** The connection's options; a host key other than the pinned one is refused and handed to `refused`. */
function connectOptions(t: SftpTarget, address: string, refused: (key: Buffer) => void): ConnectConfig {
  const { config, settings } = t;
  const connect: ConnectConfig = {
    host: address,
    port: t.port,
    username: config.username,
    readyTimeout: settings.connectTimeoutMs,
    keepaliveInterval: settings.keepaliveIntervalMs,
    keepaliveCountMax: 3,
    hostVerifier: (key: Buffer) => {
      const digest = createHash('sha256').update(key).digest();
      if (timingSafeEqual(digest, t.pinned)) return true;
      refused(key);
      return false;
    },
  };
  if (config.password !== undefined) connect.password = config.password;
  if (config.privateKey !== undefined) connect.privateKey = config.privateKey;
  if (config.passphrase !== undefined) connect.passphrase = config.passphrase;
  return connect;
}

/** What a connection error means: a refused host key, refused credentials, a timeout, a failed or lost connection. */
function sessionError(
  t: SftpTarget,
  err: Error & { level?: string; code?: string },
  presented: Buffer | undefined,
  ready: boolean,
): SftpChannelError {
  const { where } = t;
  if (presented) {
    return new SftpChannelError(
      'host_key_mismatch',
      `SFTP host key of ${t.config.host}:${t.port} does not match the pinned fingerprint ` +
        `(presented ${fingerprintOf(presented)}, pinned SHA256:${t.pinned.toString('base64').replace(/=+$/, '')})`,
      false,
    );
  }
  if (err.level === 'client-authentication') {
    return new SftpChannelError('auth_failed', `SFTP authentication failed for ${where}`, false);
  }
  if (err.level === 'client-timeout') {
    return new SftpChannelError(
      'timeout',
      `SFTP connection to ${where} timed out after ${t.settings.connectTimeoutMs} ms`,
      true,
    );
  }
  if (!ready) {
    return new SftpChannelError('connection_failed', `SFTP connection to ${where} failed: ${safeReason(err)}`, true, {
      cause: err,
    });
  }
  return new SftpChannelError('connection_lost', `SFTP connection to ${where} was lost: ${safeReason(err)}`, true);
}

/** Uploads `bytes` as `name` in the inbound folder: written as `.part`, renamed when complete, once. */
async function deliverOn(t: SftpTarget, sftp: SFTPWrapper, name: string, bytes: Buffer): Promise<DeliveryReceipt> {
  const target = path.posix.join(t.config.inboundDir, name);
  const part = `${target}.part`;
  const receipt = (alreadyDelivered: boolean): DeliveryReceipt => ({
    channel: 'sftp',
    reference: target,
    alreadyDelivered,
  });
  if (await sameFileExists(t, sftp, target, bytes)) return receipt(true);
  await upload(sftp, part, bytes);
  try {
    await call<void>((cb) => sftp.rename(part, target, cb));
  } catch (err) {
    // A concurrent retry may have won the rename (servers refuse to rename onto an existing name).
    await call<void>((cb) => sftp.unlink(part, cb)).catch(() => {});
    if (await sameFileExists(t, sftp, target, bytes)) return receipt(true);
    throw remoteError(`rename of ${part} to ${target}`, err);
  }
  return receipt(false);
}

/** True when `target` holds exactly `bytes`; throws `conflict` when it holds something else. */
async function sameFileExists(t: SftpTarget, sftp: SFTPWrapper, target: string, bytes: Buffer): Promise<boolean> {
  const attrs = await statOrNull(sftp, target);
  if (!attrs) return false;
  if (attrs.size === bytes.length) {
    const existing = await download(sftp, target, Math.max(bytes.length, 1));
    if (existing.equals(bytes)) return true;
  }
  throw new SftpChannelError(
    'conflict',
    `${target} already exists at ${t.where} with different content; refusing to overwrite it`,
    false,
  );
}

/** The bank's files in the outbound folder, oldest first, oversized ones left in place (and logged). */
async function fetchOn(t: SftpTarget, sftp: SFTPWrapper): Promise<InboundFile[]> {
  const { config, settings } = t;
  const entries = await call<FileEntryWithStats[]>((cb) => sftp.readdir(config.outboundDir, cb));
  const pickable = entries.filter((e) => isPickable(e.filename) && e.attrs.isFile());
  for (const entry of pickable.filter((e) => e.attrs.size > settings.maxFileBytes)) {
    config.logger?.warn(
      {
        channel: 'sftp',
        host: config.host,
        file: path.posix.join(config.outboundDir, entry.filename),
        size: entry.attrs.size,
        limit: settings.maxFileBytes,
      },
      'inbound SFTP file exceeds the size limit; left in place',
    );
  }
  // Oldest first, so a backlog drains in the order the bank wrote it.
  const candidates = pickable
    .filter((e) => e.attrs.size <= settings.maxFileBytes)
    .sort((a, b) => a.attrs.mtime - b.attrs.mtime || (a.filename < b.filename ? -1 : 1))
    .slice(0, settings.maxFilesPerFetch);
  const files: InboundFile[] = [];
  for (const entry of candidates) {
    const remote = path.posix.join(config.outboundDir, entry.filename);
    try {
      const content = await download(sftp, remote, settings.maxFileBytes);
      files.push({ name: entry.filename, content: new Uint8Array(content) });
    } catch (err) {
      // Grew past the limit after the listing: leave it, like any oversized file.
      if (!(err instanceof SftpChannelError && err.code === 'too_large')) throw err;
      config.logger?.warn({ channel: 'sftp', host: config.host, file: remote }, err.message);
    }
  }
  return files;
}

/** A picked-up file removed, or moved to the archive folder under a name not yet taken. */
async function acknowledgeOn(t: SftpTarget, sftp: SFTPWrapper, name: string): Promise<void> {
  const source = path.posix.join(t.config.outboundDir, name);
  const archiveDir = t.config.archiveDir;
  if (archiveDir === undefined) {
    try {
      await call<void>((cb) => sftp.unlink(source, cb));
    } catch (err) {
      if (statusOf(err) !== STATUS_NO_SUCH_FILE) throw remoteError(`removal of ${source}`, err);
    }
    return;
  }
  // Acknowledged files are evidence: an archived file of the same name is never overwritten.
  for (let n = 0; n <= MAX_ARCHIVE_SUFFIX; n++) {
    const target = path.posix.join(archiveDir, n === 0 ? name : `${name}.${n}`);
    try {
      await call<void>((cb) => sftp.rename(source, target, cb));
      return;
    } catch (err) {
      if (!(await statOrNull(sftp, source))) return; // already acknowledged (a retried call)
      if (!(await statOrNull(sftp, target))) throw remoteError(`move of ${source} to ${target}`, err);
    }
  }
  throw new SftpChannelError('conflict', `no free archive name for ${name} in ${archiveDir}`, false);
}

/** Both folders exist and are folders. */
async function checkFolders(t: SftpTarget, sftp: SFTPWrapper): Promise<void> {
  for (const [name, dir] of [
    ['inboundDir', t.config.inboundDir],
    ['outboundDir', t.config.outboundDir],
  ] as const) {
    const attrs = await statOrNull(sftp, dir);
    // S_IFDIR in the mode bits: the folder must exist and be a folder.
    if (attrs === null || (attrs.mode & 0o170000) !== 0o040000) {
      throw new SftpChannelError('missing_folder', `SFTP ${name} ${dir} is not a folder at ${t.where}`, false);
    }
  }
}

async function upload(sftp: SFTPWrapper, remote: string, bytes: Buffer): Promise<void> {
  const handle = await call<Buffer>((cb) => sftp.open(remote, 'w', cb)).catch((err: unknown) => {
    throw remoteError(`open of ${remote}`, err);
  });
  try {
    for (let offset = 0; offset < bytes.length; offset += CHUNK) {
      const length = Math.min(CHUNK, bytes.length - offset);
      await call<void>((cb) => sftp.write(handle, bytes, offset, length, offset, cb));
    }
  } catch (err) {
    throw remoteError(`write of ${remote}`, err);
  } finally {
    await call<void>((cb) => sftp.close(handle, cb)).catch(() => {});
  }
  const written = await statOrNull(sftp, remote);
  if (written?.size !== bytes.length) {
    throw new SftpChannelError(
      'remote_error',
      `upload of ${remote} incomplete: ${written?.size ?? 'no'} of ${bytes.length} bytes`,
      true,
    );
  }
}

/** Reads a whole remote file, refusing to hold more than `limit` bytes. */
async function download(sftp: SFTPWrapper, remote: string, limit: number): Promise<Buffer> {
  const handle = await call<Buffer>((cb) => sftp.open(remote, 'r', cb)).catch((err: unknown) => {
    throw remoteError(`open of ${remote}`, err);
  });
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.alloc(CHUNK);
      const read = await readChunk(sftp, handle, buffer, total);
      if (read === 0) break;
      total += read;
      if (total > limit) {
        throw new SftpChannelError('too_large', `${remote} exceeds the ${limit} byte limit; left in place`, false);
      }
      chunks.push(buffer.subarray(0, read));
    }
    return Buffer.concat(chunks, total);
  } finally {
    await call<void>((cb) => sftp.close(handle, cb)).catch(() => {});
  }
}

function readChunk(sftp: SFTPWrapper, handle: Buffer, buffer: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    sftp.read(handle, buffer, 0, buffer.length, position, (err, bytesRead) => {
      // ssh2 reports end of file as an error with status EOF (1) or as zero bytes read.
      if (err && statusOf(err) === 1) resolve(0);
      else if (err) reject(remoteError('read', err));
      else resolve(bytesRead);
    });
  });
}

function statOrNull(sftp: SFTPWrapper, remote: string): Promise<Attributes | null> {
  return new Promise((resolve, reject) => {
    sftp.stat(remote, (err, attrs) => {
      if (!err) resolve(attrs);
      else if (statusOf(err) === STATUS_NO_SUCH_FILE) resolve(null);
      else reject(remoteError(`stat of ${remote}`, err));
    });
  });
}

function call<T>(fn: (cb: (err: Error | null | undefined, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    fn((err, value) => (err ? reject(err) : resolve(value)));
  });
}

function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

function remoteError(what: string, err: unknown): SftpChannelError {
  if (err instanceof SftpChannelError) return err;
  const reason = err instanceof Error ? safeReason(err) : 'unknown error';
  const lost = reason === 'No response from server';
  return new SftpChannelError(
    lost ? 'connection_lost' : 'remote_error',
    `SFTP ${what} failed: ${lost ? 'connection lost' : reason}`,
    true,
  );
}

/** ssh2's messages describe protocol states, never credentials; keep them short anyway. */
function safeReason(err: Error): string {
  return err.message.slice(0, 200);
}

function invalid(message: string): SftpChannelError {
  return new SftpChannelError('invalid_config', `SFTP channel: ${message}`, false);
}

/** A plain remote file name: no path separators, no `.`/`..`, no leading dot, no control characters. */
function checkFileName(name: string): string {
  if (name.length === 0 || name.length > 255 || /[/\\\u0000-\u001f\u007f]/.test(name) || name.startsWith('.')) {
    throw new SftpChannelError(
      'invalid_file_name',
      `not a plain file name: ${JSON.stringify(name.slice(0, 80))}`,
      false,
    );
  }
  return name;
}

/** Files the bank has finished writing: not hidden, not an upload in progress. */
function isPickable(name: string): boolean {
  return !name.startsWith('.') && !name.endsWith('.part') && name !== '' && !/[/\\]/.test(name);
}

function parseFingerprint(value: string): Buffer {
  const text = value.trim();
  const hex = text.replace(/:/g, '');
  if (/^[0-9a-fA-F]{64}$/.test(hex)) return Buffer.from(hex, 'hex');
  const base64 = text.replace(/^SHA256:/i, '');
  if (/^[A-Za-z0-9+/]{43}=?$/.test(base64)) {
    const bytes = Buffer.from(base64, 'base64');
    if (bytes.length === 32) return bytes;
  }
  throw invalid('hostKeySha256 must be the SHA-256 host key fingerprint (SHA256:<base64> or 64 hex digits)');
}

function fingerprintOf(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/**
 * Resolves once with the platform's SSRF guard (the one every outbound target goes through: IPv6
 * forms embedding IPv4, metadata and private ranges included) and returns the address to connect to,
 * so a second lookup cannot point elsewhere.
 */
async function resolveAddress(host: string, allowPrivate: boolean): Promise<string> {
  try {
    return (await resolveChecked(host, { allowPrivate })).address;
  } catch (err) {
    if (err instanceof SsrfError) throw new SftpChannelError('address_refused', `SFTP host ${err.message}`, false);
    throw new SftpChannelError('connection_failed', `SFTP host ${host} does not resolve`, true, { cause: err });
  }
}
