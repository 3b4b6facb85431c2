import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyPluginAsync } from 'fastify';
import { notFound } from '../../app/errors.ts';

const require = createRequire(import.meta.url);
const web = (name: string) => new URL(`../../../web/${name}`, import.meta.url);

/**
 * The dashboard's static files, all from this repository or an npm package (no CDN, no build step):
 * read once at start, served by a fixed name, so no request names a path on disk.
 */
function loadAssets(): Map<string, { type: string; body: Buffer }> {
  const css = 'text/css; charset=utf-8';
  const js = 'text/javascript; charset=utf-8';
  return new Map([
    ['dashboard.css', { type: css, body: readFileSync(web('dashboard.css')) }],
    ['favicon.svg', { type: 'image/svg+xml', body: readFileSync(web('favicon.svg')) }],
    ['balance-chart.js', { type: js, body: readFileSync(web('balance-chart.js')) }],
    ['uplot.js', { type: js, body: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js')) }],
    ['uplot.css', { type: css, body: readFileSync(require.resolve('uplot/dist/uPlot.min.css')) }],
  ]);
}

export const dashboardAssets: FastifyPluginAsync = async (app) => {
  const assets = loadAssets();
  app.get('/dashboard/assets/:name', { schema: { hide: true } }, async (request, reply) => {
    const asset = assets.get((request.params as { name: string }).name);
    if (!asset) throw notFound('asset');
    return reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(asset.body);
  });
};
