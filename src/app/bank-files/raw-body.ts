/**
 * A raw request body (the stateless statement route's XML or MT940) gathered in the file worker as
 * its chunks arrive: one buffer sized from Content-Length (grown by doubling without one), so the
 * event loop never holds or joins the body (docs/adr/0064).
 */
export class RawBody {
  private buffer: Uint8Array;
  private length = 0;

  constructor(sizeHint?: number) {
    this.buffer = new Uint8Array(sizeHint !== undefined && sizeHint > 0 ? sizeHint : 64 * 1024);
  }

  /** Copies the chunk (the caller frees it right after). */
  push(bytes: Uint8Array): void {
    if (this.length + bytes.byteLength > this.buffer.byteLength) {
      const grown = new Uint8Array(Math.max(this.buffer.byteLength * 2, this.length + bytes.byteLength));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(bytes, this.length);
    this.length += bytes.byteLength;
  }

  /** The body's bytes (a view of the buffer when it was larger than the body). */
  end(): Uint8Array {
    const bytes = this.buffer.subarray(0, this.length);
    this.buffer = new Uint8Array(0);
    return bytes;
  }
}
