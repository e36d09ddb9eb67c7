// Puppeteer's postinstall downloads its own Chrome. Skip it when a system Chrome/Chromium exists
// (or PUPPETEER_SKIP_DOWNLOAD is set): the harness resolves the executable itself (orchestrator/run/browser-path.js).
const { existsSync } = require('node:fs');
const systemBrowsers = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome', '/Applications/Chromium.app/Contents/MacOS/Chromium'];
module.exports = { skipDownload: Boolean(process.env.PUPPETEER_SKIP_DOWNLOAD) || systemBrowsers.some((p) => existsSync(p)) };
