import type { ChildProcess } from 'node:child_process';

/** The first line a benchmark's server child prints, parsed: its ports and credentials. */
export function firstJsonLine<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split('\n')[0];
      if (buffer.includes('\n') && line) resolve(JSON.parse(line) as T);
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}
