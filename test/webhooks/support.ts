/**
 * Real local servers for the webhook tests: a test CA and server certificate (openssl CLI), an
 * HTTPS receiver that records requests and answers what the test says, a Slack-shaped receiver and
 * a tiny SMTP server speaking enough of RFC 5321 for nodemailer.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export type TestCa = { caFile: string; key: string; cert: string };

let cached: TestCa | undefined;

/** A throwaway CA and a server certificate for 127.0.0.1, 127.0.0.2 and localhost. */
export function testCa(): TestCa {
  if (cached) return cached;
  const dir = mkdtempSync(path.join(tmpdir(), 'payops-wh-ca-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  run([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=payops webhook test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  run(['req', ...ec, '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(
    path.join(dir, 'ext.cnf'),
    'subjectAltName=IP:127.0.0.1,IP:127.0.0.2,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  run([
    'x509',
    '-req',
    '-in',
    'srv.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'srv.pem',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  ]);
  cached = {
    caFile: path.join(dir, 'ca.pem'),
    key: readFileSync(path.join(dir, 'srv.key'), 'utf8'),
    cert: readFileSync(path.join(dir, 'srv.pem'), 'utf8'),
  };
  return cached;
}

export type Received = { method: string; path: string; headers: Record<string, string>; body: string };
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export type Receiver = {
  url: string;
  port: number;
  received: Received[];
  /** What the next requests get; a function decides per request. */
  answer: (req: Received) => Answer;
  /** Ends every request left hanging (`'hang'`) by dropping its connection. */
  hangUp(): void;
  close(): Promise<void>;
};

/** An HTTPS server on `host` with the test CA's certificate. */
export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const ca = testCa();
  const hanging = new Set<() => void>();
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    answer: () => ({ status: 200, body: 'ok' }),
    hangUp: () => {},
    close: async () => {},
  };
  const server = createHttpsServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(',') : String(v);
      const got: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      receiver.received.push(got);
      const answer = receiver.answer(got);
      if (answer === 'hang') {
        hanging.add(() => res.destroy());
        return;
      }
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as { port: number }).port;
  receiver.port = port;
  receiver.url = `https://${host}:${port}/hook`;
  receiver.hangUp = () => {
    for (const end of hanging) end();
    hanging.clear();
  };
  receiver.close = async () => {
    for (const end of hanging) end();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

export type SmtpMessage = { from: string; to: string[]; data: string };
export type SmtpServer = { url: string; messages: SmtpMessage[]; close(): Promise<void> };

/** A minimal SMTP server: EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT; no TLS, no auth. */
export async function startSmtpServer(): Promise<SmtpServer> {
  const messages: SmtpMessage[] = [];
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.setEncoding('utf8');
    let buffer = '';
    let inData = false;
    let current: SmtpMessage = { from: '', to: [], data: '' };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 test-smtp ESMTP ready');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end).replace(/\r\n\.\./g, '\r\n.');
          buffer = buffer.slice(end + 5);
          inData = false;
          messages.push(current);
          current = { from: '', to: [], data: '' };
          reply('250 2.0.0 queued');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') reply('250-test-smtp\r\n250-8BITMIME\r\n250 SMTPUTF8');
        else if (verb === 'HELO') reply('250 test-smtp');
        else if (verb === 'MAIL') {
          current.from = /<([^>]*)>/.exec(line)?.[1] ?? '';
          reply('250 2.1.0 ok');
        } else if (verb === 'RCPT') {
          current.to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
          reply('250 2.1.5 ok');
        } else if (verb === 'DATA') {
          inData = true;
          reply('354 end with <CRLF>.<CRLF>');
        } else if (verb === 'RSET') {
          current = { from: '', to: [], data: '' };
          reply('250 ok');
        } else if (verb === 'NOOP') reply('250 ok');
        else if (verb === 'QUIT') {
          reply('221 bye');
          socket.end();
        } else reply('502 not implemented');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Waits (bounded) for a condition that another process or the event loop makes true. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
