/**
 * Reading a V8 CPU profile (the inspector's `Profiler.stop`, or a `--cpu-prof` file): self time by
 * module or by function, for the profile benchmarks (bench:submit-profile, bench:workers-profile).
 */
export type CpuProfile = {
  nodes: Array<{ id: number; callFrame: { url: string; functionName: string }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
};

/** Where a profile node's self time goes: the module (ours by folder, npm by package, node: by name). */
export function bucket(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : `native ${functionName}`;
  const ours = /\/src\/([^/]+)\/([^/]+)/.exec(url);
  if (ours && !url.includes('node_modules')) return `src/${ours[1]}/${ours[2]!.replace(/\.ts$/, '')}`;
  const npm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (npm) return `npm ${npm[1]}`;
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  return url;
}

/** Self time (µs) by module, or (`byFunction`) by function and file. */
export function selfTimes(profile: CpuProfile, byFunction = false): Map<string, number> {
  const name = (url: string, fn: string) =>
    byFunction ? `${fn || '(anonymous)'} ${url.replace(/^.*\/(src|node_modules)\//, '$1/')}`.trim() : bucket(url, fn);
  const byId = new Map(profile.nodes.map((n) => [n.id, name(n.callFrame.url, n.callFrame.functionName)]));
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const b = byId.get(id)!;
    out.set(b, (out.get(b) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return out;
}

const ours = (url: string) => url.includes('/src/') && !url.includes('node_modules');

/**
 * Time by our own function that called it: every sample of library, Node or native code is charged to
 * the nearest function of src/ below it on the stack (its self time included), so a query builder's
 * cost shows under the repository function that built the query. Samples with no function of ours on
 * the stack (timers, sockets, the garbage collector) are left out.
 */
export function oursWithCallees(profile: CpuProfile): Map<string, number> {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const charged = new Map<number, string | null>();
  const chargeOf = (id: number): string | null => {
    const known = charged.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id)!;
    const { url, functionName } = node.callFrame;
    const up = parent.get(id);
    const name = ours(url)
      ? `${functionName || '(anonymous)'} ${url.replace(/^.*\/src\//, 'src/')}`
      : up === undefined
        ? null
        : chargeOf(up);
    charged.set(id, name);
    return name;
  };
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const name = chargeOf(id);
    if (name !== null) out.set(name, (out.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return out;
}
