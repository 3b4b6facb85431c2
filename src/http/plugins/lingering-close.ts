import type { Socket } from 'node:net';

/**
 * An early refusal (413 for a body over the limit) is answered while the client is still sending,
 * and Fastify closes such a connection. Node then destroys the socket as soon as the answer is
 * written; the bytes the client keeps sending meet a closed socket, the kernel answers them with a
 * reset, and the client (Node's http, undici, most HTTP libraries) reports EPIPE or ECONNRESET instead
 * of the 413 it was sent. So, like nginx's lingering close, a socket closed with its request body
 * unread half-closes instead: the answer and a FIN go out, what the client still sends is read and
 * dropped, and the socket is destroyed when the client closes its side or after LINGER_MS.
 */
const LINGER_MS = 5_000;
const lingering = new WeakSet<Socket>();

export function lingerBeforeClose(socket: Socket | null | undefined): void {
  if (!socket || lingering.has(socket)) return;
  lingering.add(socket);
  const destroySoon = socket.destroySoon;
  socket.destroySoon = function lingeringDestroySoon(this: Socket) {
    if (this.readableEnded) return destroySoon.call(this);
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('end', () => this.destroy());
    this.once('close', () => clearTimeout(timer));
    this.resume();
  };
}
