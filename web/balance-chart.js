// Draws each account's balance-over-time chart with uPlot (served locally from the npm package).
// The figures come from the page itself (the chart element's data-series attribute, escaped by the
// server); the table beside the chart holds the same figures for readers without JavaScript.
(() => {
  for (const element of document.querySelectorAll('.chart[data-series]')) {
    const data = JSON.parse(element.getAttribute('data-series') || '{}');
    if (!Array.isArray(data.dates) || data.dates.length === 0 || typeof uPlot !== 'function') continue;
    const xs = data.dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const ys = data.balances.map(Number);
    element.textContent = '';
    new uPlot(
      {
        width: Math.max(320, element.clientWidth),
        height: 260,
        scales: { x: { time: true } },
        series: [{}, { label: `Closing balance (${data.currency})`, stroke: '#1a56b0', width: 2 }],
      },
      [xs, ys],
      element,
    );
  }
})();
