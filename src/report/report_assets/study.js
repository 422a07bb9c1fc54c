// Draws the charts of a parameter study's HTML page (sensitivity: the tornado; identification:
// W along each parameter and, for two parameters, the fitted surface) with the helpers of
// charts.js, inlined just before this script.
(function () {
  'use strict';

  const { SIM, data, fmt, extent, points, axisTitle, subtitle, viridis } = window.wasserwarpCharts;
  const BELOW = '#7048e8';
  const ABOVE = SIM;
  const BAND = 'rgba(47, 158, 68, 0.13)';
  const BASELINE = '#2b8a3e';
  const POINT = '#343a40';
  const POINT_FAINT = 'rgba(52, 58, 64, 0.22)';
  const SURFACE_BAND = 'rgba(28, 111, 209, 0.16)';
  const IDENTIFIED = '#e03131';
  const NOMINAL = '#495057';

  // Lines and shaded bands at data values, clipped to the plot: the references' baseline, the
  // identified value and its interval, the nominal value. Each is {axis: 'x' | 'y', value} or
  // {axis, from, to}; lines may carry a dash and a label. Bands and lines go behind the
  // datasets, labels in front of them, on a pale ground so that bars do not hide them.
  function guides(bands, lines) {
    const clipped = (chart, paint) => {
      const { ctx, chartArea: area } = chart;
      ctx.save();
      ctx.beginPath();
      ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
      ctx.clip();
      paint(ctx, area, (axis, value) => chart.scales[axis].getPixelForValue(value));
      ctx.restore();
    };
    return {
      id: 'guides',
      beforeDatasetsDraw(chart) {
        clipped(chart, (ctx, area, at) => {
          for (const band of bands) {
            ctx.fillStyle = band.colour;
            const a = at(band.axis, band.from);
            const b = at(band.axis, band.to);
            if (band.axis === 'x') {
              ctx.fillRect(Math.min(a, b), area.top, Math.abs(b - a), area.bottom - area.top);
            } else {
              ctx.fillRect(area.left, Math.min(a, b), area.right - area.left, Math.abs(b - a));
            }
          }
          for (const line of lines) {
            const p = at(line.axis, line.value);
            ctx.strokeStyle = line.colour;
            ctx.lineWidth = line.width || 1.5;
            ctx.setLineDash(line.dash || []);
            ctx.beginPath();
            ctx.moveTo(line.axis === 'x' ? p : area.left, line.axis === 'x' ? area.top : p);
            ctx.lineTo(line.axis === 'x' ? p : area.right, line.axis === 'x' ? area.bottom : p);
            ctx.stroke();
          }
        });
      },
      afterDatasetsDraw(chart) {
        clipped(chart, (ctx, area, at) => {
          ctx.font = '11px ' + Chart.defaults.font.family;
          ctx.textBaseline = 'middle';
          for (const line of lines) {
            if (!line.label) continue;
            const p = at(line.axis, line.value);
            const x = line.axis === 'x' ? p + 4 : area.left + 4;
            const y = line.axis === 'x' ? area.top + 9 + (line.row || 0) * 15 : p - 9;
            const width = ctx.measureText(line.label).width;
            ctx.fillStyle = 'rgba(255, 255, 255, 0.85)';
            ctx.fillRect(x - 2, y - 7, width + 4, 14);
            ctx.fillStyle = line.colour;
            ctx.fillText(line.label, x, y);
          }
        });
      },
    };
  }

  function tornado(canvas) {
    const t = data.tornado;
    const b = t.baseline;
    const labels = t.names.map((name, i) => (t.flagged[i] ? name + ' (flagged)' : name));
    const bars = (label, values, deltas, colour) => ({
      label: label,
      data: values,
      deltas: deltas,
      backgroundColor: colour,
      barPercentage: 0.9,
      categoryPercentage: 0.8,
    });
    const reach = extent(t.minus.concat(t.plus, b === null ? [] : [b, -b]));
    const span = Math.max(Math.abs(reach[0]), Math.abs(reach[1])) * 1.08 || 1;
    const bands = b === null ? [] : [{ axis: 'x', from: -b, to: b, colour: BAND }];
    const lines = [{ axis: 'x', value: 0, colour: '#adb5bd', width: 1 }];
    if (b !== null) {
      lines.push({ axis: 'x', value: b, colour: BASELINE, dash: [5, 4],
                   label: 'baseline ' + fmt(b) });
      lines.push({ axis: 'x', value: -b, colour: BASELINE, dash: [5, 4] });
    }
    return new Chart(canvas, {
      type: 'bar',
      data: {
        labels: labels,
        datasets: [
          bars('smallest deviation below the nominal value', t.minus, t.minus_delta, BELOW),
          bars('smallest deviation above the nominal value', t.plus, t.plus_delta, ABOVE),
        ],
      },
      options: {
        indexAxis: 'y',
        plugins: {
          legend: { labels: { boxHeight: 10 } },
          tooltip: {
            callbacks: {
              label: (ctx) => ' \u03b4 = ' + fmt(ctx.dataset.deltas[ctx.dataIndex]) +
                ': \u0394W = ' + fmt(ctx.parsed.x),
            },
          },
        },
        scales: {
          x: {
            suggestedMin: -span,
            suggestedMax: span,
            title: axisTitle('change of W from the nominal vector'),
          },
          y: { ticks: { autoSkip: false } },
        },
      },
      plugins: [guides(bands, lines)],
    });
  }

  function slice(canvas, index) {
    const s = data.slices[index];
    const b = data.baseline;
    const on = [];
    const off = [];
    s.points.x.forEach((x, k) => (s.points.on[k] ? on : off).push({ x: x, y: s.points.w[k] }));
    const [x0, x1] = extent(s.x.concat(s.nominal === null ? [] : [s.nominal]));
    const [y0, y1] = extent(s.lo.concat(s.hi, s.fitted, s.points.w, b === null ? [] : [b]));
    const pad = 0.06 * (y1 - y0) || 0.06 * Math.abs(y1) || 1;
    const curve = (label, ys, extra) => Object.assign({
      label: label,
      data: points(s.x, ys),
      pointRadius: 0,
      borderWidth: 0,
    }, extra);
    const scatter = (label, values, colour, radius) => ({
      label: label,
      data: values,
      showLine: false,
      clip: false,
      pointRadius: radius,
      pointHoverRadius: radius + 2,
      backgroundColor: colour,
      borderColor: colour,
    });
    const datasets = [
      curve('band low', s.lo, { noLegend: true, fill: false }),
      curve('bootstrap band', s.hi, { fill: '-1', backgroundColor: SURFACE_BAND }),
      curve('fitted surface', s.fitted, { borderColor: SIM, backgroundColor: SIM, borderWidth: 2 }),
      scatter(off.length > 0 ? 'design points nearest the slice' : 'design points', on, POINT, 4),
    ];
    if (off.length > 0) datasets.push(scatter('other design points', off, POINT_FAINT, 3));
    const bands = [{ axis: 'x', from: s.interval[0], to: s.interval[1], colour: BAND }];
    const lines = [{ axis: 'x', value: s.identified, colour: IDENTIFIED, width: 2,
                     label: 'identified ' + fmt(s.identified) }];
    if (s.nominal !== null) {
      lines.push({ axis: 'x', value: s.nominal, colour: NOMINAL, dash: [5, 4], row: 1,
                   label: 'nominal ' + fmt(s.nominal) });
    }
    if (b !== null) {
      lines.push({ axis: 'y', value: b, colour: BASELINE, dash: [5, 4],
                   label: 'ref\u2013ref baseline ' + fmt(b) });
    }
    return new Chart(canvas, {
      type: 'line',
      data: { datasets: datasets },
      options: {
        interaction: { mode: 'nearest', intersect: false },
        plugins: {
          title: { display: true, text: 'W against ' + s.parameter },
          subtitle: subtitle(['interval ' + fmt(s.interval[0]) + ' \u2013 ' + fmt(s.interval[1])]),
          legend: {
            position: 'bottom',
            labels: {
              boxHeight: 8,
              filter: (item, chartData) => !chartData.datasets[item.datasetIndex].noLegend,
            },
          },
          tooltip: {
            filter: (item) => !item.dataset.noLegend,
            callbacks: {
              label: (ctx) => ' ' + ctx.dataset.label + ': ' + s.parameter + ' = ' +
                fmt(ctx.parsed.x) + ', W = ' + fmt(ctx.parsed.y),
            },
          },
        },
        scales: {
          x: { type: 'linear', min: x0, max: x1, title: axisTitle(s.parameter) },
          y: { min: y0 - pad, max: y1 + pad, title: axisTitle('W') },
        },
      },
      plugins: [guides(bands, lines)],
    });
  }

  // Chart.js has no heat map: the cells are filled behind the datasets, in data units, so the
  // axes, the points and their tooltips stay Chart.js's own.
  function cells(h) {
    const n = h.cells;
    const [x0, x1, y0, y1] = h.box;
    const span = h.max - h.min;
    return {
      id: 'cells',
      beforeDatasetsDraw(chart) {
        const { ctx } = chart;
        const sx = chart.scales.x;
        const sy = chart.scales.y;
        ctx.save();
        for (let r = 0; r < n; ++r) {
          const top = sy.getPixelForValue(y0 + (y1 - y0) * (r + 1) / n);
          const bottom = sy.getPixelForValue(y0 + (y1 - y0) * r / n);
          for (let c = 0; c < n; ++c) {
            const left = sx.getPixelForValue(x0 + (x1 - x0) * c / n);
            const right = sx.getPixelForValue(x0 + (x1 - x0) * (c + 1) / n);
            const v = h.values[r * n + c];
            ctx.fillStyle = viridis(span > 0 ? (v - h.min) / span : 0.5);
            // Half a pixel more each way, so that no seam shows between cells.
            ctx.fillRect(left - 0.5, top - 0.5, right - left + 1, bottom - top + 1);
          }
        }
        ctx.restore();
      },
    };
  }

  function surface(canvas) {
    const h = data.surface;
    const [x0, x1, y0, y1] = h.box;
    const span = h.max - h.min;
    const colour = (w) => viridis(span > 0 ? (w - h.min) / span : 0.5);
    // Points on the box's edges are drawn whole (clip: false); a lower order is drawn on top.
    const datasets = [{
      label: 'design points',
      data: h.points.x.map((x, k) => ({ x: x, y: h.points.y[k], w: h.points.w[k] })),
      backgroundColor: h.points.w.map(colour),
      borderColor: '#ffffff',
      borderWidth: 1.5,
      pointRadius: 6,
      pointHoverRadius: 8,
      clip: false,
      order: 2,
    }, {
      label: 'identified',
      data: [{ x: h.identified[0], y: h.identified[1] }],
      pointStyle: 'crossRot',
      borderColor: IDENTIFIED,
      backgroundColor: IDENTIFIED,
      borderWidth: 3.5,
      pointRadius: 12,
      pointHoverRadius: 14,
      clip: false,
      order: 0,
    }];
    if (h.nominal !== null) {
      datasets.push({
        label: 'nominal',
        data: [{ x: h.nominal[0], y: h.nominal[1] }],
        pointStyle: 'triangle',
        borderColor: '#ffffff',
        backgroundColor: NOMINAL,
        borderWidth: 1.5,
        pointRadius: 8,
        pointHoverRadius: 10,
        clip: false,
        order: 1,
      });
    }
    // The design points' legend entry in a neutral colour: theirs vary with W.
    const legendItems = (chart) =>
      Chart.defaults.plugins.legend.labels.generateLabels(chart).map((item) =>
        (item.datasetIndex === 0 ? Object.assign(item, { fillStyle: '#adb5bd' }) : item));
    const at = (ctx) => h.names[0] + ' = ' + fmt(ctx.parsed.x) + ', ' + h.names[1] + ' = ' +
      fmt(ctx.parsed.y);
    return new Chart(canvas, {
      type: 'scatter',
      data: { datasets: datasets },
      options: {
        plugins: {
          legend: {
            labels: {
              usePointStyle: true,
              boxWidth: 10,
              boxHeight: 10,
              generateLabels: legendItems,
            },
          },
          tooltip: {
            callbacks: {
              label: (ctx) => ' ' + ctx.dataset.label + ': ' + at(ctx) +
                (ctx.raw.w === undefined ? '' : ', W = ' + fmt(ctx.raw.w)),
            },
          },
        },
        scales: {
          x: { min: x0, max: x1, grid: { display: false }, title: axisTitle(h.names[0]) },
          y: { min: y0, max: y1, grid: { display: false }, title: axisTitle(h.names[1]) },
        },
      },
      plugins: [cells(h)],
    });
  }

  window.wasserwarpCharts.drawCharts({
    tornado: (canvas) => tornado(canvas),
    slice: (canvas, index) => slice(canvas, index),
    surface: (canvas) => surface(canvas),
  });
})();
