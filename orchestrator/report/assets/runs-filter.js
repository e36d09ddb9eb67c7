// Filters the runs table of results/index.html by scenario, status, browser, emulator and text.
(function () {
  'use strict';
  var controls = Array.prototype.slice.call(document.querySelectorAll('[data-filter]'));
  var rows = Array.prototype.slice.call(document.querySelectorAll('table.runs tbody tr[data-scenario]'));
  var count = document.getElementById('run-count');
  function update() {
    var shown = 0;
    rows.forEach(function (row) {
      var ok = controls.every(function (c) {
        var want = c.value.trim().toLowerCase();
        if (!want) return true;
        if (c.dataset.filter === 'text') return row.textContent.toLowerCase().indexOf(want) >= 0;
        return (row.dataset[c.dataset.filter] || '').toLowerCase() === want;
      });
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    if (count) count.textContent = shown + ' of ' + rows.length + ' runs';
  }
  controls.forEach(function (c) { c.addEventListener('input', update); });
  // Filters can be preset from the URL: index.html?scenario=loss-10&status=failed
  var params = new URLSearchParams(location.search);
  controls.forEach(function (c) { if (params.has(c.dataset.filter)) c.value = params.get(c.dataset.filter); });
  update();
})();
