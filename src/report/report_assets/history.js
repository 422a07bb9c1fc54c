// Draws the charts of a validation history's HTML page (W and the baseline ratio over the values
// of one label, each record marked PASS or FAIL) with the helpers of charts.js, inlined just
// before this script.
(function () {
  'use strict';

  const { data, fmt, axisTitle } = window.wasserwarpCharts;
  const PASS = '#2b8a3e';
  const FAIL = '#c92a2a';
  const UNDECIDED = '#868e96';
  const LINE = 'rgba(52, 58, 64, 0.45)';
  const THRESHOLD = '#343a40';
  const INTERVAL = 'rgba(28, 111, 209, 0.35)';

  // A record's mark: its colour and shape say PASS, FAIL or no decision, also to a reader who
  // cannot tell red from green.
  const colour = (passed) => (passed === true ? PASS : passed === false ? FAIL : UNDECIDED);
  const shape = (passed) => (passed === true ? 'circle' : passed === false ? 'crossRot' : 'rect');
  const verdict = (passed) => (passed === true ? 'PASS' : passed === false ? 'FAIL' : 'no rule');

  function thresholdDataset(label, values) {
    return {
      type: 'line',
      label: label,
      data: values,
      borderColor: THRESHOLD,
      borderDash: [6, 4],
      borderWidth: 1.5,
      pointRadius: 0,
      stepped: 'middle',
      spanGaps: false,
      fill: false,
    };
  }

  function marks(values) {
    return {
      pointBackgroundColor: data.passed.map(colour),
      pointBorderColor: data.passed.map(colour),
      pointStyle: data.passed.map(shape),
      pointRadius: 6,
      pointHoverRadius: 8,
      pointBorderWidth: 2,
      borderColor: LINE,
      borderWidth: 1.5,
      data: values,
    };
  }

  const tooltip = {
    callbacks: {
      title: (items) => data.by + ' = ' + data.values[items[0].dataIndex],
      label: (ctx) => {
        const raw = ctx.raw;
        const value = Array.isArray(raw) ? fmt(raw[0]) + ' \u2013 ' + fmt(raw[1]) : fmt(raw);
        const extra = ctx.datasetIndex === 0 ? ' (' + verdict(data.passed[ctx.dataIndex]) + ')' : '';
        return ' ' + ctx.dataset.label + ': ' + value + extra;
      },
    },
  };

  function xAxis() {
    return { grid: { display: false }, title: axisTitle(data.by) };
  }

  function distance(canvas) {
    const datasets = [Object.assign({ type: 'line', label: 'W' }, marks(data.distance))];
    if (data.max_distance.some((v) => v !== null)) {
      datasets.push(thresholdDataset('max_distance', data.max_distance));
    }
    new Chart(canvas, {
      type: 'line',
      data: { labels: data.values, datasets: datasets },
      options: {
        plugins: { legend: { display: datasets.length > 1 }, tooltip: tooltip },
        scales: { x: xAxis(), y: { beginAtZero: true, title: axisTitle('W') } },
      },
    });
  }

  function ratio(canvas) {
    const intervals = data.lo.map((lo, i) => (lo === null || data.hi[i] === null ? null : [lo, data.hi[i]]));
    const datasets = [
      Object.assign({ type: 'line', label: 'ratio', spanGaps: true }, marks(data.ratio)),
      {
        type: 'bar',
        label: 'interval',
        data: intervals,
        backgroundColor: INTERVAL,
        borderSkipped: false,
        barPercentage: 0.35,
      },
    ];
    if (data.max_ratio.some((v) => v !== null)) {
      datasets.push(thresholdDataset('max_ratio', data.max_ratio));
    }
    new Chart(canvas, {
      type: 'bar',
      data: { labels: data.values, datasets: datasets },
      options: {
        plugins: { legend: { display: true }, tooltip: tooltip },
        scales: { x: xAxis(), y: { beginAtZero: true, title: axisTitle('ratio') } },
      },
    });
  }

  window.wasserwarpCharts.drawCharts({
    distance: (canvas) => distance(canvas),
    ratio: (canvas) => ratio(canvas),
  });
})();
