// Draws the trend dashboard's charts (report/render-trends.js) for the chosen scenario from the embedded
// #report-data: per metric the nightly median, its IQR band, the published reference, the gate's regressions,
// browser changes (vertical lines on the axis) and a drift window. window.trendCharts lists what was drawn.
(function () {
  'use strict';
  /**
   * @typedef {import('../render-trends.js').Trends} Trends
   * @typedef {Trends['scenarios'][number]} TrendScenario
   * @typedef {Trends['metrics'][number]} TrendMetric
   * @typedef {import('../render-trends.js').TrendSeries} TrendSeries
   */
  var dataElement = document.getElementById('report-data');
  if (!dataElement) throw new Error('trends.js: the page has no #report-data block: render it with render-trends.js');
  /** @type {Trends} */
  var data = JSON.parse(dataElement.textContent || 'null');
  var Chart = /** @type {any} */ (window).Chart; // any: Chart.js's UMD global is untyped
  var COLORS = { median: '#1f77b4', band: 'rgba(31, 119, 180, 0.18)', reference: '#7f7f7f', regression: '#d62728', browser: '#8e44ad', drift: 'rgba(255, 140, 0, 0.22)' };
  var select = /** @type {HTMLSelectElement} */ (document.getElementById('scenario-select'));
  var chartsElement = document.getElementById('trend-charts');
  if (!chartsElement) throw new Error('trends.js: the page has no #trend-charts: render it with render-trends.js');
  var container = chartsElement;
  /**
   * What was drawn, for the tests (window.trendCharts).
   * any: Chart.js's untyped UMD global
   * @type {Array<{ scenario: string, metric: string, chart: any, drift: TrendSeries['drift'], browserChanges: number[] }>}
   *   any: a Chart.js chart (the UMD global is untyped)
   */
  var drawn = [];
  /** @type {Window & { trendCharts?: typeof drawn }} */ (window).trendCharts = drawn;
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  Chart.defaults.font.size = 11;

  /**
   * The report link of a night if the page may follow it: http(s) or relative (render-trends.js safeLink, which this
   * page cannot import, drops the others before rendering; checked again here where the page navigates).
   * @param {unknown} link
   * @returns {string|null}
   */
  function safeLink(link) {
    if (typeof link !== 'string' || !link) return null;
    try {
      return ['http:', 'https:'].indexOf(new URL(link, 'http://relative.invalid/').protocol) >= 0 ? link : null;
    } catch (error) {
      return null;
    }
  }

  /** @param {number} index */
  function day(index) {
    var night = data.nights[Math.round(index)];
    return night ? night.t.slice(0, 10) : '';
  }

  // Browser changes and the drift window are drawn on the chart area, not as data: they belong to nights, not values.
  /** @param {TrendSeries['drift']} drift */
  function markersFor(drift) {
    return {
    id: 'trendMarkers',
    beforeDatasetsDraw: /** @param {any} chart any: Chart.js's chart (untyped UMD global) */ function (chart) {
      if (!drift) return;
      var area = chart.chartArea;
      var x0 = chart.scales.x.getPixelForValue(drift.fromNight - 0.5);
      chart.ctx.save();
      chart.ctx.fillStyle = COLORS.drift;
      chart.ctx.fillRect(Math.max(area.left, x0), area.top, area.right - Math.max(area.left, x0), area.bottom - area.top);
      chart.ctx.restore();
    },
    afterDatasetsDraw: /** @param {any} chart any: Chart.js's chart (untyped UMD global) */ function (chart) {
      var area = chart.chartArea;
      var ctx = chart.ctx;
      ctx.save();
      ctx.strokeStyle = COLORS.browser;
      ctx.fillStyle = COLORS.browser;
      ctx.lineWidth = 2;
      ctx.textAlign = 'left';
      data.browserChanges.forEach(function (change) {
        var x = Math.round(chart.scales.x.getPixelForValue(change.night)) + 0.5;
        ctx.beginPath();
        ctx.moveTo(x, area.top);
        ctx.lineTo(x, area.bottom);
        ctx.stroke();
        ctx.fillText(change.to, x + 3, area.top + 10);
      });
      ctx.restore();
    },
    };
  }

  /** @param {TrendScenario} scenario @param {TrendMetric} metric */
  function chartFor(scenario, metric) {
    var series = scenario.series[metric.path];
    var scale = metric.scale || 1;
    /** @param {Array<number|null>} values */
    var points = function (values) { return series.x.map(function (x, i) { return { x: x, y: Number(values[i]) * scale }; }); };
    /** @type {any[]} any: Chart.js dataset options (untyped UMD global) */
    var datasets = [
      { label: 'q1', data: points(series.q1), borderWidth: 0, pointRadius: 0, fill: false },
      { label: 'IQR', data: points(series.q3), borderWidth: 0, pointRadius: 0, backgroundColor: COLORS.band, fill: '-1' },
      { label: 'median', data: points(series.med), borderColor: COLORS.median, backgroundColor: COLORS.median, borderWidth: 1.5, pointRadius: series.x.length > 60 ? 0 : 2, pointHitRadius: 4 },
    ];
    if (series.reference !== null) {
      datasets.push({ label: 'published reference', data: [{ x: 0, y: series.reference * scale }, { x: data.nights.length - 1, y: series.reference * scale }], borderColor: COLORS.reference, borderDash: [6, 4], borderWidth: 1, pointRadius: 0 });
    }
    if (series.regressions.length) {
      var at = series.x.indexOf.bind(series.x);
      datasets.push({ label: 'regression (gate)', type: 'scatter', data: series.regressions.map(function (night) { return { x: night, y: series.med[at(night)] * scale }; }), pointStyle: 'triangle', pointRadius: 7, backgroundColor: COLORS.regression, borderColor: COLORS.regression });
    }
    var box = document.createElement('div');
    box.className = 'chart-box trend-chart';
    box.dataset.metric = metric.path;
    var title = document.createElement('h3');
    title.textContent = metric.label + (metric.unit ? ' (' + metric.unit + ')' : '');
    box.appendChild(title);
    if (series.drift) {
      var note = document.createElement('p');
      note.className = 'drift' + (series.drift.worse ? ' drift-worse' : '');
      note.textContent = series.drift.text;
      box.appendChild(note);
    }
    var canvas = document.createElement('canvas');
    canvas.height = 90;
    box.appendChild(canvas);
    container.appendChild(box);
    var chart = new Chart(canvas, {
      type: 'line',
      data: { datasets: datasets },
      options: {
        animation: false, parsing: false, normalized: true, spanGaps: true,
        interaction: { mode: 'nearest', intersect: false, axis: 'x' },
        scales: {
          x: { type: 'linear', min: 0, max: Math.max(1, data.nights.length - 1), ticks: { callback: day, maxTicksLimit: 12 } },
          y: { title: { display: Boolean(metric.unit), text: metric.unit } },
        },
        plugins: {
          legend: { labels: { filter: /** @param {{ text: string }} item */ function (item) { return item.text !== 'q1'; } } },
          tooltip: { callbacks: { title: /** @param {Array<{ parsed: { x: number } }>} items */ function (items) { var n = data.nights[items[0].parsed.x]; return n ? day(items[0].parsed.x) + ' ' + (n.browser || '') : ''; } } },
        },
        onClick: /** @param {unknown} event @param {Array<{ datasetIndex: number, index: number }>} elements */ function (event, elements) {
          var hit = elements[0];
          var night = hit && data.nights[chart.data.datasets[hit.datasetIndex].data[hit.index].x];
          var link = night && safeLink(night.report);
          if (link) window.location.href = link;
        },
      },
      plugins: [markersFor(series.drift)],
    });
    var changes = data.browserChanges.map(function (c) { return c.night; });
    drawn.push({ scenario: scenario.name, metric: metric.path, chart: chart, drift: series.drift, browserChanges: changes });
  }

  /** @param {string} name */
  function show(name) {
    var scenario = data.scenarios.filter(function (s) { return s.name === name; })[0] || data.scenarios[0];
    drawn.forEach(function (entry) { entry.chart.destroy(); });
    drawn.length = 0;
    container.textContent = '';
    if (!scenario) return;
    select.value = scenario.name;
    var title = document.getElementById('scenario-title');
    if (title) title.textContent = scenario.name;
    data.metrics.forEach(function (metric) { if (scenario.series[metric.path]) chartFor(scenario, metric); });
    document.body.dataset.trendsDrawn = scenario.name;
  }

  select.addEventListener('change', function () { window.location.hash = encodeURIComponent(select.value); });
  window.addEventListener('hashchange', function () { show(decodeURIComponent(window.location.hash.slice(1))); });
  show(decodeURIComponent(window.location.hash.slice(1)));
})();
