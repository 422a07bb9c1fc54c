// What every page of wasserwarp's HTML reports draws its charts with, inlined after Chart.js and
// before the page's own script (report.js, study.js): the Chart.js defaults, the colours, number
// formatting, and the loop that gives each canvas with data-chart="KIND" data-index="I" its
// chart from the JSON in the element with id wasserwarp-data. Text from the data (run ids,
// parameter names) only ever reaches the page as Chart.js labels, drawn on the canvas, never
// parsed as HTML.
window.wasserwarpCharts = (function () {
  'use strict';

  const VIRIDIS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];

  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  Chart.defaults.font.size = 12;
  Chart.defaults.color = '#343a40';
  Chart.defaults.animation = false;
  Chart.defaults.responsive = true;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.plugins.title.font = { size: 13, weight: '600' };
  Chart.defaults.plugins.legend.labels.boxWidth = 18;
  Chart.defaults.plugins.legend.labels.boxHeight = 3;

  function fmt(x) {
    if (x === null || x === undefined || !isFinite(x)) return '\u2014';
    const a = Math.abs(x);
    if (a !== 0 && (a >= 1e5 || a < 1e-3)) return x.toExponential(3);
    return String(Number(x.toPrecision(4)));
  }

  // Math.min(...values) overflows the stack on long arrays.
  function extent(values) {
    let low = Infinity;
    let high = -Infinity;
    for (const v of values) {
      if (v === null || !isFinite(v)) continue;
      low = Math.min(low, v);
      high = Math.max(high, v);
    }
    return low <= high ? [low, high] : [0, 0];
  }

  function points(xs, ys) {
    const out = new Array(xs.length);
    for (let i = 0; i < xs.length; ++i) out[i] = { x: xs[i], y: ys[i] };
    return out;
  }

  function axisTitle(text) {
    return { display: true, text: text, font: { weight: '600' } };
  }

  function subtitle(lines) {
    return {
      display: lines.length > 0,
      text: lines,
      color: '#5c636a',
      font: { size: 11, style: 'italic' },
      padding: { bottom: 6 },
    };
  }

  // The colour of t in [0, 1]; the pages' colour bars show the same gradient.
  function viridis(t) {
    const s = Math.min(Math.max(isFinite(t) ? t : 0, 0), 1) * (VIRIDIS.length - 1);
    const k = Math.min(Math.floor(s), VIRIDIS.length - 2);
    const f = s - k;
    const c = VIRIDIS[k].map((v, i) => Math.round(v + f * (VIRIDIS[k + 1][i] - v)));
    return 'rgb(' + c.join(',') + ')';
  }

  // draw[kind](canvas, index) for every canvas; a chart that throws says so under its canvas
  // and the others are still drawn. How many were drawn is left on <html data-charts-drawn>.
  function drawCharts(draw) {
    let drawn = 0;
    document.querySelectorAll('canvas[data-chart]').forEach((canvas) => {
      try {
        draw[canvas.dataset.chart](canvas, Number(canvas.dataset.index));
        ++drawn;
      } catch (error) {
        const message = document.createElement('p');
        message.className = 'note';
        message.textContent = 'This chart could not be drawn: ' + error;
        canvas.parentNode.after(message);
        console.error(error);
      }
    });
    document.documentElement.dataset.chartsDrawn = String(drawn);
  }

  return {
    SIM: '#1c6fd1',
    SIM_FILL: 'rgba(28, 111, 209, 0.55)',
    SIM_PALE: 'rgba(28, 111, 209, 0.35)',
    REF: ['#e8590c', '#f59f00', '#c2255c'],
    REF_FILL: 'rgba(232, 89, 12, 0.6)',
    data: JSON.parse(document.getElementById('wasserwarp-data').textContent),
    fmt: fmt,
    extent: extent,
    points: points,
    axisTitle: axisTitle,
    subtitle: subtitle,
    viridis: viridis,
    drawCharts: drawCharts,
  };
})();
