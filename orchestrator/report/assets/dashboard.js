// Draws the chart panels of a report page from the embedded #report-data JSON (see series.js for
// its shape) and keeps every time axis on the same range: drag to zoom, shift-drag to pan,
// ctrl/shift-wheel to zoom, double-click to reset.
(function () {
  'use strict';
  var startedAtMs = performance.now();
  /**
   * @typedef {import('../chart-series.js').ChartData} ChartData
   * @typedef {import('../chart-series.js').PanelSpec} PanelSpec
   * @typedef {any} ChartJs  any: a Chart.js chart, scale or tooltip item (the UMD global is untyped)
   */
  var dataElement = document.getElementById('report-data');
  if (!dataElement) throw new Error('dashboard.js: the page has no #report-data block: render it with report/page.js');
  /** @type {ChartData} */
  var data = JSON.parse(dataElement.textContent || 'null');
  // Chart.js is inlined before this script as a global.
  var Chart = /** @type {any} */ (window).Chart; // any: Chart.js's UMD global is untyped
  var full = { min: data.xMinS, max: data.xMaxS };
  var view = { min: full.min, max: full.max };
  var MIN_SPAN_S = 5;
  /** @type {ChartJs[]} */
  var charts = [];
  /** @type {Set<ChartJs>} */
  var visible = new Set();
  /** @type {Set<ChartJs>} */
  var stale = new Set();
  var pending = false;

  // Tick spacing in whole, readable seconds: at most ~9 ticks over the visible range.
  var STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
  /** @param {number} spanS */
  function tickStep(spanS) {
    for (var i = 0; i < STEPS_S.length; i++) if (spanS / STEPS_S[i] <= 9) return STEPS_S[i];
    return STEPS_S[STEPS_S.length - 1];
  }

  /** @param {number} seconds */
  function clock(seconds) {
    var sign = seconds < 0 ? '-' : '';
    var total = Math.round(Math.abs(seconds));
    var m = Math.floor(total / 60);
    var s = String(total % 60).padStart(2, '0');
    return sign + m + ':' + s;
  }

  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  Chart.defaults.font.size = 11;
  Chart.defaults.color = '#333';

  var FLOW_COLOR = '#6a3d9a';
  /** @type {Record<string, { color: string, width: number, dash: number[] }>} */
  var MARKER_STYLE = {
    change: { color: '#8a8a8a', width: 1, dash: [2, 3] },
    flow: { color: FLOW_COLOR, width: 1.25, dash: [5, 3] },
    error: { color: '#c0392b', width: 1.5, dash: [] },
  };

  // Warm-up band, schedule changes, flow changes and errors, drawn under the data; the flow changes' labels over it.
  var markersPlugin = {
    id: 'runMarkers',
    /** @param {ChartJs} chart @param {unknown} args @param {{ spans?: PanelSpec['spans'] }} options */
    beforeDatasetsDraw: function (chart, args, options) {
      var ctx = chart.ctx;
      var area = chart.chartArea;
      var x = chart.scales.x;
      ctx.save();
      ctx.beginPath();
      ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
      ctx.clip();
      // The panel's own shaded spans (freezes), each at least a pixel wide.
      (options.spans || []).forEach(function (span) {
        var left = x.getPixelForValue(span.fromS);
        ctx.fillStyle = span.color;
        ctx.fillRect(left, area.top, Math.max(1, x.getPixelForValue(span.toS) - left), area.bottom - area.top);
      });
      if (data.warmupS) {
        var from = x.getPixelForValue(data.xMinS);
        var to = x.getPixelForValue(data.warmupS);
        ctx.fillStyle = 'rgba(0,0,0,0.05)';
        ctx.fillRect(from, area.top, to - from, area.bottom - area.top);
      }
      (data.markers || []).forEach(function (m) {
        var px = x.getPixelForValue(m.tS);
        if (px < area.left || px > area.right) return;
        var style = MARKER_STYLE[m.kind] || MARKER_STYLE.change;
        ctx.beginPath();
        ctx.strokeStyle = style.color;
        ctx.lineWidth = style.width;
        ctx.setLineDash(style.dash);
        ctx.moveTo(px, area.top);
        ctx.lineTo(px, area.bottom);
        ctx.stroke();
      });
      ctx.restore();
    },
    /** @param {ChartJs} chart */
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx;
      var area = chart.chartArea;
      var x = chart.scales.x;
      var row = 0;
      ctx.save();
      ctx.beginPath();
      ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
      ctx.clip();
      ctx.font = '10px ' + Chart.defaults.font.family;
      ctx.textBaseline = 'top';
      ctx.lineJoin = 'round';
      (data.markers || []).forEach(function (m) {
        if (m.kind !== 'flow' || !m.label) return;
        var px = x.getPixelForValue(m.tS);
        if (px < area.left || px > area.right) return;
        // Labels of nearby changes take turns on three rows.
        var y = area.top + 2 + (row++ % 3) * 12;
        ctx.lineWidth = 3;
        ctx.strokeStyle = 'rgba(255,255,255,0.85)';
        ctx.strokeText(m.label, px + 3, y);
        ctx.fillStyle = FLOW_COLOR;
        ctx.fillText(m.label, px + 3, y);
      });
      ctx.restore();
    },
  };

  /** One Chart.js dataset per series of a panel. @param {PanelSpec} panel */
  function datasetsOf(panel) {
    var areas = 0;
    return panel.series.map(function (s, index) {
      var points = new Array(s.x.length);
      for (var i = 0; i < s.x.length; i++) points[i] = { x: s.x[i], y: s.y[i] };
      // A stacked panel stacks its measured series as areas, each filled down to the one before it (by index: the
      // 'stack' fill mode would fill to the configured lines too); each configured line is a stack of its own.
      var area = Boolean(panel.stacked && !s.configured);
      /** @type {string|false} */
      var fill = false;
      if (area) fill = areas++ === 0 ? 'origin' : '-1';
      return {
        label: s.label,
        data: points,
        stack: panel.stacked ? (area ? 'flows' : 'configured-' + index) : undefined,
        fill: fill,
        borderColor: s.color,
        backgroundColor: area ? s.color + 'b3' : s.color,
        borderWidth: s.width || 1.5,
        borderDash: s.dash || [],
        stepped: s.stepped ? 'before' : false,
        yAxisID: s.axis === 'y2' ? 'y2' : 'y',
        // A series of points (the layer switches) is drawn as markers without a line.
        showLine: !s.points,
        pointStyle: s.points ? 'triangle' : 'circle',
        pointRadius: s.points ? 5 : 0,
        pointHoverRadius: s.points ? 7 : 3,
        pointHitRadius: s.points ? 6 : 3,
        spanGaps: false,
        tension: 0,
        order: s.configured ? 0 : 1,
        tips: s.tips || null,
      };
    });
  }

  /** @param {PanelSpec} panel @returns {ChartJs|null} */
  function makeChart(panel) {
    var canvas = document.getElementById('chart-' + panel.id);
    if (!canvas) return null;
    var hasY2 = panel.series.some(function (s) { return s.axis === 'y2'; });
    var cats = panel.yCategories;
    var datasets = datasetsOf(panel);
    // Fixed axis widths line up the plot areas of all charts, so one time is one x position.
    /** @param {number} px */
    function fixWidth(px) { return /** @param {ChartJs} axis */ function (axis) { axis.width = px; }; }
    /** @type {Record<string, any>} any: Chart.js scale options (untyped UMD global) */
    var y = { afterFit: fixWidth(64), beginAtZero: true, title: { display: Boolean(panel.yLabel), text: panel.yLabel }, grid: { color: '#ececec' }, ticks: { maxTicksLimit: 6 } };
    if (panel.stacked) y.stacked = true;
    if (cats) {
      var categories = cats;
      y = {
        afterFit: fixWidth(64), min: -0.5, max: categories.length - 0.5, grid: { color: '#ececec' },
        afterBuildTicks: /** @param {ChartJs} axis */ function (axis) {
          axis.ticks = categories.map(function (_, i) { return { value: i }; });
        },
        ticks: { callback: /** @param {number} v */ function (v) { return categories[v] || ''; } },
      };
    }
    /** @type {Record<string, object>} */
    var scales = {
      x: { type: 'linear', min: view.min, max: view.max, grid: { color: '#ececec' }, ticks: { stepSize: tickStep(view.max - view.min), includeBounds: false, maxRotation: 0, callback: /** @param {number} v */ function (v) { return clock(v); } }, title: { display: false } },
      y: y,
    };
    if (hasY2) scales.y2 = { afterFit: fixWidth(52), position: 'right', beginAtZero: true, grid: { drawOnChartArea: false }, title: { display: true, text: panel.y2Label || '' }, ticks: { maxTicksLimit: 6 } };
    var chart = new Chart(canvas, {
      type: 'line',
      data: { datasets: datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        parsing: false,
        normalized: true,
        interaction: { mode: 'x', intersect: false },
        scales: scales,
        plugins: {
          runMarkers: { spans: panel.spans || [] },
          legend: { position: 'bottom', labels: { boxWidth: 18, boxHeight: 0, padding: 8, usePointStyle: false } },
          tooltip: {
            callbacks: {
              title: /** @param {ChartJs[]} items */ function (items) { return items.length ? clock(items[0].parsed.x) : ''; },
              label: /** @param {ChartJs} item */ function (item) {
                var v = item.parsed.y;
                var ds = item.dataset;
                if (ds.tips && ds.tips[item.dataIndex]) return ds.label + ': ' + ds.tips[item.dataIndex];
                if (cats) return ds.label + ': ' + (cats[v] || v);
                return ds.label + ': ' + (Math.abs(v) >= 100 ? Math.round(v) : Math.round(v * 100) / 100);
              },
            },
          },
        },
      },
      plugins: [markersPlugin],
    });
    attachZoom(chart, canvas);
    return chart;
  }

  /** @param {number} min @param {number} max */
  function setView(min, max) {
    var span = Math.max(max - min, MIN_SPAN_S);
    span = Math.min(span, full.max - full.min);
    if (min < full.min) min = full.min;
    if (min + span > full.max) min = full.max - span;
    view = { min: min, max: min + span };
    var label = document.getElementById('zoom-range');
    if (label) label.textContent = clock(view.min) + '–' + clock(view.max);
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      charts.forEach(function (c) {
        if (visible.has(c)) apply(c);
        else stale.add(c);
      });
    });
  }

  /** @param {ChartJs} chart */
  function apply(chart) {
    chart.options.scales.x.min = view.min;
    chart.options.scales.x.max = view.max;
    chart.options.scales.x.ticks.stepSize = tickStep(view.max - view.min);
    chart.update('none');
    stale.delete(chart);
  }

  /** @param {ChartJs} chart @param {HTMLElement} canvas */
  function attachZoom(chart, canvas) {
    /** @type {HTMLDivElement|null} */
    var band = null; // created on the first drag: no DOM changes between chart creations
    /** @type {{ x0: number, pan: boolean, view: { min: number, max: number } }|null} */
    var drag = null;
    /** @param {number} px @returns {number} */
    function valueAt(px) { return chart.scales.x.getValueForPixel(px); }
    canvas.addEventListener('pointerdown', function (e) {
      if (e.button !== 0) return;
      var area = chart.chartArea;
      if (e.offsetX < area.left || e.offsetX > area.right) return;
      drag = { x0: e.offsetX, pan: e.shiftKey, view: { min: view.min, max: view.max } };
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener('pointermove', function (e) {
      if (!drag) return;
      var area = chart.chartArea;
      if (drag.pan) {
        var perPx = (drag.view.max - drag.view.min) / (area.right - area.left);
        var shift = (e.offsetX - drag.x0) * perPx;
        setView(drag.view.min - shift, drag.view.max - shift);
        return;
      }
      if (!band) {
        band = document.createElement('div');
        band.className = 'zoom-band';
        if (canvas.parentNode) canvas.parentNode.appendChild(band);
      }
      var a = Math.max(area.left, Math.min(drag.x0, e.offsetX));
      var b = Math.min(area.right, Math.max(drag.x0, e.offsetX));
      band.style.display = 'block';
      band.style.left = a + 'px';
      band.style.width = b - a + 'px';
      band.style.top = area.top + 'px';
      band.style.height = area.bottom - area.top + 'px';
    });
    canvas.addEventListener('pointerup', function (e) {
      if (!drag) return;
      var d = drag;
      drag = null;
      if (band) band.style.display = 'none';
      if (d.pan || Math.abs(e.offsetX - d.x0) < 5) return;
      var v0 = valueAt(d.x0);
      var v1 = valueAt(e.offsetX);
      setView(Math.min(v0, v1), Math.max(v0, v1));
    });
    canvas.addEventListener('wheel', function (e) {
      if (!(e.ctrlKey || e.shiftKey || e.altKey || e.metaKey)) return;
      e.preventDefault();
      var c = valueAt(e.offsetX);
      var delta = e.deltaY || e.deltaX;
      var f = Math.pow(1.0015, delta);
      setView(c - (c - view.min) * f, c + (view.max - c) * f);
    }, { passive: false });
    canvas.addEventListener('dblclick', function () { setView(full.min, full.max); });
  }

  var observer = 'IntersectionObserver' in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      var chart = Chart.getChart(entry.target);
      if (!chart) return;
      if (entry.isIntersecting) {
        visible.add(chart);
        if (stale.has(chart)) apply(chart);
      } else {
        visible.delete(chart);
      }
    });
  }) : null;

  (data.sections || []).forEach(function (section) {
    section.panels.forEach(function (panel) {
      try {
        var chart = makeChart(panel);
        if (!chart) return;
        charts.push(chart);
        if (observer) observer.observe(chart.canvas);
        else visible.add(chart);
      } catch (error) {
        var message = error instanceof Error ? error.message : String(error);
        var el = document.getElementById('chart-' + panel.id);
        var parent = el ? el.parentElement : null;
        if (parent) parent.insertAdjacentHTML('beforeend', '<p class="chart-error">This chart could not be drawn: ' + String(message).replace(/</g, '&lt;') + '</p>');
        console.error('chart ' + panel.id + ': ' + message);
      }
    });
  });

  var reset = document.getElementById('zoom-reset');
  if (reset) reset.addEventListener('click', function () { setView(full.min, full.max); });

  // Read by tests and bench/report-render.js: all charts drawn once the next frame starts.
  requestAnimationFrame(function () {
    var ready = { atMs: performance.now(), chartsStartedAtMs: startedAtMs, charts: charts.length };
    /** @type {Window & { __reportReady?: typeof ready }} */ (window).__reportReady = ready;
    document.documentElement.setAttribute('data-report-ready', String(charts.length));
  });
})();
