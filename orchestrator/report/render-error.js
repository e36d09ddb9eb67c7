// The page written in place of a report when result.json cannot be read: it names the file and
// says what to do, instead of leaving a blank or stale page.

import { renderPage } from './page.js';
import { escapeHtml } from './format.js';

/** @param {string} message @param {string} file @returns {string} */
export function renderErrorPage(message, file) {
  return renderPage({
    title: `Report unavailable · ${file}`,
    body: `<main class="report"><p class="kicker">WebRTC test bed · run report</p><h1>Report unavailable <span class="status status-unreadable">unreadable</span></h1>
<section class="problems bad" id="load-error"><h2>${escapeHtml(file)} could not be read</h2><p>${escapeHtml(message)}</p>
<p>After fixing or replacing the file, regenerate this page with <code>webrtc-testbed report ${escapeHtml(file.replace(/[\\/]result\.json$/, ''))}</code>.</p></section></main>`,
    script: null,
  });
}
