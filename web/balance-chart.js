// Draws each account's balance-over-time chart with uPlot (served locally from the npm package).
// The figures come from the page itself (the chart element's data-series attribute, escaped by the
// server); the table beside the chart holds the same figures for readers without JavaScript.
// One point per statement, in statement order, labelled with its date: a day can have several.
(() => {
  for (const element of document.querySelectorAll('.chart[data-series]')) {
    const data = JSON.parse(element.getAttribute('data-series') || '{}');
    if (!Array.isArray(data.dates) || data.dates.length === 0 || typeof uPlot !== 'function') continue;
    const xs = data.dates.map((_, i) => i + 1);
    const ys = data.balances.map(Number);
    const label = (i) => data.dates[Math.round(i) - 1] ?? '';
    element.textContent = '';
    new uPlot(
      {
        width: Math.max(320, element.clientWidth),
        height: 260,
        scales: { x: { time: false, range: [0.5, xs.length + 0.5] } },
        axes: [
          { values: (_u, splits) => splits.map((s) => (Number.isInteger(s) ? label(s) : '')) },
          {
            size: 110,
            values: (_u, splits) => splits.map((s) => s.toLocaleString('en', { maximumFractionDigits: 2 })),
          },
        ],
        series: [
          { label: 'Statement', value: (_u, v) => (v == null ? '--' : `${v} (${label(v)})`) },
          {
            label: `Closing balance (${data.currency})`,
            stroke: '#1a56b0',
            width: 2,
            points: { size: 7 },
            value: (_u, v) => (v == null ? '--' : v.toLocaleString('en', { minimumFractionDigits: 2 })),
          },
        ],
      },
      [xs, ys],
      element,
    );
  }
})();
