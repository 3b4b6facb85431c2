/**
 * Collects small strings into chunks of about 64 KB and hands each to the sink. Large batches then never
 * build one giant string (the 100,000-transaction file is ~90 MB), and the sink decides where bytes go.
 */
export type ChunkSink = (chunk: string) => void;

const CHUNK = 65_536;

export class ChunkWriter {
  private buf = '';
  private readonly sink: ChunkSink;

  constructor(sink: ChunkSink) {
    this.sink = sink;
  }

  write(text: string): void {
    this.buf += text;
    if (this.buf.length >= CHUNK) {
      this.sink(this.buf);
      this.buf = '';
    }
  }

  end(): void {
    if (this.buf !== '') this.sink(this.buf);
    this.buf = '';
  }
}
