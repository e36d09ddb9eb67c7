// Filters the runs table of results/index.html by scenario, status, browser, emulator and text.
(function () {
  'use strict';
  /** @type {Array<HTMLInputElement|HTMLSelectElement>} */
  var controls = Array.prototype.slice.call(document.querySelectorAll('[data-filter]'));
  /** @type {HTMLTableRowElement[]} */
  var rows = Array.prototype.slice.call(document.querySelectorAll('table.runs tbody tr[data-scenario]'));
  var count = document.getElementById('run-count');
  function update() {
    var shown = 0;
    rows.forEach(function (row) {
      var ok = controls.every(function (c) {
        var want = c.value.trim().toLowerCase();
        if (!want) return true;
        var filter = c.dataset.filter || '';
        if (filter === 'text') return (row.textContent || '').toLowerCase().indexOf(want) >= 0;
        return (row.dataset[filter] || '').toLowerCase() === want;
      });
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    if (count) count.textContent = shown + ' of ' + rows.length + ' runs';
  }
  controls.forEach(function (c) { c.addEventListener('input', update); });
  // Filters can be preset from the URL: index.html?scenario=loss-10&status=failed
  var params = new URLSearchParams(location.search);
  controls.forEach(function (c) {
    var preset = params.get(c.dataset.filter || '');
    if (preset !== null) c.value = preset;
  });
  update();
})();
