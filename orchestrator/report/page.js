// The HTML shell of every report page: self-contained (Chart.js, styles, scripts and data inline)
// so a page opens from disk with no network.

import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EnvironmentError } from '../lib/system/errors.js';
import { escapeHtml, jsonForScript } from './format.js';

const ASSETS = join(dirname(fileURLToPath(import.meta.url)), 'assets');
/** @type {Map<string, string>} */
const cache = new Map();

/** The assets are read once per process: a report renders many pages (index, compare, runs). @param {string} name @param {string} path */
function asset(name, path) {
  const cached = cache.get(name);
  if (cached !== undefined) return cached;
  const text = readFileSync(path, 'utf8').replace(/<\/script/gi, '<\\/script');
  cache.set(name, text);
  return text;
}

/** Path of the bundled Chart.js UMD build (the one that defines window.Chart). */
export function chartJsPath() {
  const require = createRequire(import.meta.url);
  let main;
  try {
    main = require.resolve('chart.js');
  } catch (error) {
    throw new EnvironmentError('chart.js is not installed: run `npm install` in the repository root.', { cause: error });
  }
  const umd = join(dirname(main), 'chart.umd.min.js');
  if (!existsSync(umd)) throw new EnvironmentError(`${umd} is missing: reinstall chart.js (npm install chart.js@4).`);
  return umd;
}

/**
 * @param {{title: string, body: string, data?: unknown, script: 'dashboard'|'runs-filter'|'trends'|null, generatedBy?: string}} page
 * @returns {string} a complete HTML document
 */
export function renderPage({ title, body, data, script, generatedBy }) {
  const charts = script === 'dashboard' || script === 'trends';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="${escapeHtml(generatedBy ?? 'webrtc-testbed report')}">
<title>${escapeHtml(title)}</title>
<style>${asset('css', join(ASSETS, 'report.css'))}</style>
</head>
<body>
${body}
${data === undefined ? '' : `<script id="report-data" type="application/json">${jsonForScript(data)}</script>`}
${charts ? `<script>${asset('chartjs', chartJsPath())}</script>` : ''}
${script ? `<script>${asset(script, join(ASSETS, `${script}.js`))}</script>` : ''}
</body>
</html>
`;
}
