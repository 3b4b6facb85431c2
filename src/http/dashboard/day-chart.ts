import { amountText } from '../../domain/receivables/expected.ts';
import { type Html, html } from './html.ts';

/**
 * A bar chart of amounts per day drawn on the server as SVG (no script: the page works without
 * JavaScript and under the dashboard's CSP). Two bars a day, side by side, each with its amount in a
 * <title> (the browser's tooltip, read by screen readers); the y axis runs from 0 to the largest
 * amount. Presentation attributes only (the CSP refuses inline styles); colours from the stylesheet's
 * classes `bar-a` and `bar-b`.
 */
export type DaySeries = { label: string; className: 'bar-a' | 'bar-b'; values: readonly bigint[] };

const W = 720;
const H = 240;
const LEFT = 72;
const BOTTOM = 28;
const TOP = 12;

export function dayChart(input: {
  id: string;
  title: string;
  currency: string;
  days: readonly string[];
  series: readonly [DaySeries, DaySeries];
  today?: string;
}): Html {
  const { days, series, currency } = input;
  let max = 0n;
  for (const s of series) for (const v of s.values) if (v > max) max = v;
  const plotH = H - TOP - BOTTOM;
  const slot = (W - LEFT - 8) / Math.max(days.length, 1);
  const bar = Math.max(1, slot / 2 - 1);
  // Scaled in bigint first, so a large amount loses no precision before it becomes a pixel height.
  const height = (v: bigint) => (max === 0n ? 0 : Number((v * 10_000n) / max) / 10_000) * plotH;
  const bars = days.map((day, i) =>
    series.map((s, k) => {
      const v = s.values[i] ?? 0n;
      const h = height(v);
      const x = LEFT + i * slot + k * (bar + 1);
      return html`<rect class="${s.className}" x="${x.toFixed(1)}" y="${(TOP + plotH - h).toFixed(1)}" width="${bar.toFixed(1)}" height="${h.toFixed(1)}"><title>${day}: ${s.label} ${amountText(v, currency)} ${currency}</title></rect>`;
    }),
  );
  // A date label every 7 days, and the last day's (right-aligned) when it is not next to one of them.
  const last = days.length - 1;
  const labels = days.map((day, i) =>
    i % 7 === 0
      ? html`<text x="${(LEFT + i * slot).toFixed(1)}" y="${H - 8}" class="axis">${day.slice(5)}</text>`
      : i === last && last % 7 >= 4
        ? html`<text x="${(LEFT + (i + 1) * slot).toFixed(1)}" y="${H - 8}" text-anchor="end" class="axis">${day.slice(5)}</text>`
        : '',
  );
  const todayAt = input.today ? days.indexOf(input.today) : -1;
  const today =
    todayAt >= 0
      ? html`<line class="today" x1="${(LEFT + todayAt * slot - 1).toFixed(1)}" x2="${(LEFT + todayAt * slot - 1).toFixed(1)}" y1="${TOP}" y2="${TOP + plotH}"><title>today ${input.today}</title></line>`
      : '';
  const legend = series.map(
    (s, k) =>
      html`<rect class="${s.className}" x="${LEFT + k * 140}" y="0" width="10" height="10"></rect><text x="${LEFT + 14 + k * 140}" y="10" class="axis">${s.label}</text>`,
  );
  return html`<figure class="day-chart"><figcaption id="${`${input.id}-title`}">${input.title}</figcaption>
<svg id="${input.id}" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${`${input.id}-title`}" xmlns="http://www.w3.org/2000/svg">
<line class="axis-line" x1="${LEFT}" x2="${W - 4}" y1="${TOP + plotH}" y2="${TOP + plotH}"></line>
<line class="axis-line" x1="${LEFT}" x2="${LEFT}" y1="${TOP}" y2="${TOP + plotH}"></line>
<text x="${LEFT - 6}" y="${TOP + 10}" text-anchor="end" class="axis">${amountText(max, currency)}</text>
<text x="${LEFT - 6}" y="${TOP + plotH}" text-anchor="end" class="axis">0</text>
${legend}${bars}${labels}${today}</svg></figure>`;
}
