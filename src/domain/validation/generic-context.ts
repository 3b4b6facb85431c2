import type { CharsetName } from './charset.ts';
import type { IssueSink } from './issue.ts';

/** State of one generic-level run: where issues go, the bank's charset and name limit, end-to-end ids seen. */
export type GenericCtx = { sink: IssueSink; charset: CharsetName; nameMax: number; seenEndToEnd: Set<string> };
