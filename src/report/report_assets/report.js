// Draws the charts of a validation's HTML report with the helpers of charts.js, inlined just
// before this script.
(function () {
  'use strict';

  const { SIM, SIM_FILL, SIM_PALE, REF, REF_FILL, data } = window.wasserwarpCharts;
  const { fmt, extent, points, axisTitle, subtitle, viridis } = window.wasserwarpCharts;
  const LINK = 'rgba(33, 37, 41, 0.6)';
  const PLAN = '#ff1f5a';
  const overlayCharts = [];

  function linksShown() {
    const toggle = document.getElementById('toggle-links');
    return toggle !== null && toggle.checked;
  }

  function contributions(canvas) {
    const c = data.contributions;
    const q = fmt(c.order);
    return new Chart(canvas, {
      type: 'bar',
      data: {
        labels: c.ids,
        datasets: [{
          label: 'contribution',
          data: c.values,
          backgroundColor: c.drawn.map((drawn) => (drawn ? SIM : SIM_PALE)),
          barPercentage: 0.85,
          categoryPercentage: 0.9,
        }],
      },
      options: {
        indexAxis: 'y',
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              label: (ctx) => {
                const share = c.total > 0 ? (100 * ctx.parsed.x / c.total).toFixed(1) : '0';
                return ' ' + fmt(ctx.parsed.x) + ' (' + share + ' % of the total)';
              },
            },
          },
        },
        scales: {
          x: {
            beginAtZero: true,
            title: axisTitle(c.order === 1 ? 'contribution to W (mass \u00d7 TWED)'
              : 'contribution to W^q (mass \u00d7 TWED^q), q = ' + q),
          },
          y: { ticks: { autoSkip: false } },
        },
      },
    });
  }

  function linkPoints(links) {
    const out = [];
    for (let k = 0; k < links.ts.length; ++k) {
      out.push({ x: links.ts[k], y: links.vs[k] });
      out.push({ x: links.tr[k], y: links.vr[k] });
      out.push({ x: links.tr[k], y: null });
    }
    return out;
  }

  function overlay(canvas, index, channelIndex) {
    const run = data.overlays[index];
    const ch = run.channels[channelIndex];
    const datasets = [{
      label: 'simulated ' + run.run,
      data: points(ch.sim.t, ch.sim.v),
      borderColor: SIM,
      backgroundColor: SIM,
      borderWidth: 1.8,
      pointRadius: 0,
      order: 1,
    }];
    ch.refs.forEach((ref, k) => {
      datasets.push({
        label: 'reference ' + ref.id,
        data: points(ref.t, ref.v),
        borderColor: REF[k % REF.length],
        backgroundColor: REF[k % REF.length],
        borderWidth: 1.5,
        pointRadius: 0,
        order: 2,
      });
    });
    ch.refs.forEach((ref, k) => {
      if (!ref.band) return;
      const inside = ref.band.inside === null ? '' : ' (' + fmt(100 * ref.band.inside) + ' % inside)';
      const shade = { borderColor: REF[k % REF.length], borderWidth: 0.5, borderDash: [4, 3],
                      pointRadius: 0, order: 4 };
      datasets.push(Object.assign({ label: 'tolerance band of ' + ref.id + inside,
                                    data: points(ref.t, ref.band.lower), fill: false }, shade));
      // Filled down to the lower edge just pushed.
      datasets.push(Object.assign({ label: 'tolerance band of ' + ref.id + ' (upper)',
                                    data: points(ref.t, ref.band.upper), fill: '-1',
                                    backgroundColor: 'rgba(120, 120, 120, 0.15)',
                                    isBandEdge: true }, shade));
    });
    ch.refs.forEach((ref) => {
      if (ref.links === null) return;
      datasets.push({
        label: 'edit-path matches with ' + ref.id,
        data: linkPoints(ref.links),
        borderColor: LINK,
        backgroundColor: LINK,
        borderWidth: 1,
        pointRadius: 0,
        spanGaps: false,
        hidden: !linksShown(),
        order: 3,
        isEditPath: true,
      });
    });
    const chart = new Chart(canvas, {
      type: 'line',
      data: { datasets: datasets },
      options: {
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        plugins: {
          title: { display: true, text: ch.name },
          subtitle: subtitle(ch.notes),
          legend: {
            labels: {
              filter: (item, chartData) => !chartData.datasets[item.datasetIndex].isEditPath &&
                !chartData.datasets[item.datasetIndex].isBandEdge,
            },
          },
          tooltip: {
            filter: (item) => !item.dataset.isEditPath,
            callbacks: {
              title: (items) => (items.length ? 't = ' + fmt(items[0].parsed.x) + ' s' : ''),
              label: (ctx) => ' ' + ctx.dataset.label + ': ' + fmt(ctx.parsed.y),
            },
          },
        },
        scales: {
          x: { type: 'linear', title: axisTitle('time (s)') },
          y: { title: axisTitle(ch.unit ? ch.name + ' [' + ch.unit + ']' : ch.name) },
        },
      },
    });
    overlayCharts.push(chart);
    return chart;
  }

  function heatmap(canvas) {
    const h = data.heatmap;
    const rows = h.rows.length;
    const cols = h.cols.length;
    const planMass = new Map(h.plan.map((p) => [p[0] * cols + p[1], p[2]]));
    const span = h.max - h.min;
    const colour = (v) => viridis(span > 0 ? (v - h.min) / span : 0.5);
    // One stacked bar of width 1 per cell: dataset j is column j, so the bars
    // of row i tile [0, cols] exactly and Chart.js supplies axes and tooltips.
    const datasets = h.cols.map((label, j) => ({
      label: label,
      data: new Array(rows).fill(1),
      backgroundColor: h.rows.map((_, i) => colour(h.values[i * cols + j])),
      borderColor: PLAN,
      borderWidth: h.rows.map((_, i) => (planMass.has(i * cols + j) ? 2 : 0)),
      borderSkipped: false,
      barPercentage: 1,
      categoryPercentage: 1,
    }));
    return new Chart(canvas, {
      type: 'bar',
      data: { labels: h.rows, datasets: datasets },
      options: {
        indexAxis: 'y',
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              title: (items) => h.rows[items[0].dataIndex] + ' \u00d7 ' + h.cols[items[0].datasetIndex],
              label: (ctx) => {
                const k = ctx.dataIndex * cols + ctx.datasetIndex;
                const mass = planMass.has(k) ? ', plan mass ' + fmt(planMass.get(k)) : '';
                return ' TWED ' + fmt(h.values[k]) + mass;
              },
            },
          },
        },
        scales: {
          x: {
            type: 'linear',
            stacked: true,
            min: 0,
            max: cols,
            grid: { display: false },
            title: axisTitle('reference runs'),
            afterBuildTicks: (axis) => {
              axis.ticks = h.cols.map((_, j) => ({ value: j + 0.5 }));
            },
            ticks: { callback: (value) => h.cols[Math.floor(value)], maxRotation: 90 },
          },
          y: { stacked: true, grid: { display: false }, title: axisTitle('simulated runs') },
        },
      },
    });
  }

  function mds(canvas) {
    const m = data.mds;
    const [x0, x1] = extent(m.sim.x.concat(m.ref.x));
    const [y0, y1] = extent(m.sim.y.concat(m.ref.y));
    const cx = (x0 + x1) / 2;
    const cy = (y0 + y1) / 2;
    // The same span on both axes, so that distances read the same either way.
    const half = 0.55 * Math.max(x1 - x0, y1 - y0) || 1;
    const side = (s) => s.x.map((x, i) => ({ x: x, y: s.y[i], id: s.ids[i] }));
    return new Chart(canvas, {
      type: 'scatter',
      data: {
        datasets: [
          {
            label: 'simulated runs (' + m.sim.ids.length + ')',
            data: side(m.sim),
            backgroundColor: SIM_FILL,
            borderColor: SIM,
            pointStyle: 'circle',
            pointRadius: 5,
            pointHoverRadius: 7,
          },
          {
            label: 'reference runs (' + m.ref.ids.length + ')',
            data: side(m.ref),
            backgroundColor: REF_FILL,
            borderColor: REF[0],
            pointStyle: 'triangle',
            pointRadius: 6,
            pointHoverRadius: 8,
          },
        ],
      },
      options: {
        plugins: {
          legend: { labels: { usePointStyle: true } },
          tooltip: { callbacks: { label: (ctx) => ' ' + ctx.raw.id } },
        },
        scales: {
          x: { min: cx - half, max: cx + half, ticks: { includeBounds: false },
               title: axisTitle('MDS axis 1 (TWED units)') },
          y: { min: cy - half, max: cy + half, ticks: { includeBounds: false },
               title: axisTitle('MDS axis 2 (TWED units)') },
        },
      },
    });
  }

  function quantity(canvas, index) {
    const q = data.quantities[index];
    const [low, high] = extent(q.sim.x.concat(q.ref.x));
    const pad = 0.06 * (high - low) || 0.06 * Math.abs(low) || 1;
    const cdf = (s) => [{ x: low - pad, y: 0 }].concat(points(s.x, s.f), [{ x: high + pad, y: 1 }]);
    const line = (label, s, colour) => ({
      label: label,
      data: cdf(s),
      stepped: 'before',
      borderColor: colour,
      backgroundColor: colour,
      borderWidth: 2,
      pointRadius: 0,
    });
    return new Chart(canvas, {
      type: 'line',
      data: {
        datasets: [
          line('simulated runs (' + q.sim_runs + ')', q.sim, SIM),
          line('reference runs (' + q.ref_runs + ')', q.ref, REF[0]),
        ],
      },
      options: {
        interaction: { mode: 'nearest', intersect: false },
        plugins: {
          title: { display: true, text: q.channel + ': ' + q.quantity },
          subtitle: subtitle(['AVM ' + fmt(q.avm) + ' (area between the CDFs)']),
        },
        scales: {
          x: { type: 'linear', min: low - pad, max: high + pad, ticks: { includeBounds: false },
               title: axisTitle(q.channel + ' ' + q.quantity) },
          y: { min: 0, max: 1, title: axisTitle('cumulative weight') },
        },
      },
    });
  }

  const draw = {
    contributions: (canvas) => contributions(canvas),
    overlay: (canvas, index) => overlay(canvas, index, Number(canvas.dataset.channel)),
    heatmap: (canvas) => heatmap(canvas),
    mds: (canvas) => mds(canvas),
    quantity: (canvas, index) => quantity(canvas, index),
  };
  window.wasserwarpCharts.drawCharts(draw);

  const toggle = document.getElementById('toggle-links');
  if (toggle !== null) {
    const any = overlayCharts.some((chart) => chart.data.datasets.some((d) => d.isEditPath));
    toggle.disabled = !any;
    toggle.addEventListener('change', () => {
      overlayCharts.forEach((chart) => {
        chart.data.datasets.forEach((d, i) => {
          if (d.isEditPath) chart.setDatasetVisibility(i, toggle.checked);
        });
        chart.update();
      });
    });
  }
})();
