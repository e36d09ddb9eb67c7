// Browses a results directory over HTTP on 127.0.0.1: the index is rendered on each request (so
// new runs appear), reports are served from disk, or rendered on the fly when a run has none. It answers only
// requests addressed to itself (Host checked: no DNS rebinding) and serves only real files inside the
// directory (no symlink out of it); errors carry no stack or absolute path.

import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { realpath, stat } from 'node:fs/promises';
import express from 'express';
import { EnvironmentError, HarnessError, InputError } from '../lib/system/errors.js';
import { collectRuns, loadResult } from '../report/write.js';
import { renderIndex } from '../report/render-index.js';
import { renderRunReport } from '../report/render-run.js';
import { renderErrorPage } from '../report/render-error.js';
import { renderTrendsPage } from '../report/render-trends.js';
import { openStoreReader } from '../history/store.js';
import { trendsFromStore } from '../history/query.js';
import { DASHBOARD_METRICS } from '../history/trends.js';

/**
 * The served directory: its path as given and with symlinks resolved, and the checks every response goes through.
 * @typedef {{ root: string, realRoot: string, realFileUnderRoot: (urlPath: string) => Promise<string|null>,
 *   shown: (file: string) => string, withoutRoot: (text: string) => string }} Served
 */

/** @param {string} dir @returns {Promise<Served>} */
async function servedDirectory(dir) {
  const root = resolve(dir);
  const info = await stat(root).catch(() => null);
  if (!info?.isDirectory()) throw new InputError(`--dir ${dir} is not a directory: pass the results directory (default: results).`);
  const realRoot = await realpath(root);
  return {
    root, realRoot,
    /**
     * The real file a URL path names, or null when it does not exist, is not a plain file, or lies outside the
     * served directory once symlinks are resolved. Dotfiles (temporary results) are never served.
     * @param {string} urlPath decoded
     */
    realFileUnderRoot: async (urlPath) => {
      if (urlPath.split('/').some((segment) => segment.startsWith('.'))) return null;
      const real = await realpath(resolve(root, `.${urlPath}`)).catch(() => null);
      if (!real || !real.startsWith(realRoot + sep)) return null;
      return (await stat(real)).isFile() ? real : null;
    },
    // A path as the page shows it: relative to the served directory, so no page names where it lives.
    shown: (file) => relative(realRoot, file).split(sep).join('/'),
    // A message naming files by their absolute path, without them.
    withoutRoot: (text) => text.replaceAll(root + sep, '').replaceAll(realRoot + sep, ''),
  };
}

/**
 * Refuses requests for another host (DNS rebinding) and undecodable or NUL-bearing paths; res.locals.path is the decoded path.
 * @param {() => Set<string>} allowedHosts  set once the server listens
 * @returns {import('express').RequestHandler}
 */
function checkRequest(allowedHosts) {
  return (req, res, next) => {
    if (!allowedHosts().has(String(req.headers.host ?? '').toLowerCase())) {
      res.status(403).type('text').send('This server answers only requests for its own address (127.0.0.1 or localhost with its port).\n');
      return;
    }
    try {
      res.locals.path = decodeURIComponent(req.path);
    } catch {
      res.status(400).type('text').send('Bad URL encoding.\n');
      return;
    }
    if (res.locals.path.includes('\0')) {
      res.status(400).type('text').send('Bad URL.\n');
      return;
    }
    next();
  };
}

/** @param {import('../history/store.js').Reader} store opened once, read-only @returns {import('express').RequestHandler} */
function trendsPage(store) {
  return async (req, res, next) => {
    try {
      res.type('html').send(renderTrendsPage(await trendsFromStore(store, { metrics: DASHBOARD_METRICS }), { store: 'the results store' }));
    } catch (error) {
      next(error);
    }
  };
}

/**
 * A file under the served directory, or a run's report rendered now when the run has none (an old run, or one
 * rendered by a different version).
 * @param {Served} served @returns {import('express').RequestHandler}
 */
function fileOrReport({ realFileUnderRoot, shown }) {
  return async (req, res, next) => {
    try {
      /** @type {string} */
      const urlPath = res.locals.path;
      const file = await realFileUnderRoot(urlPath);
      if (file) return res.sendFile(file, { dotfiles: 'allow' }); // the URL's own segments were checked above
      if (!urlPath.endsWith('/report.html')) return res.status(404).type('text').send('Not found.\n');
      const resultFile = await realFileUnderRoot(join(dirname(urlPath), 'result.json'));
      if (!resultFile) return res.status(404).type('text').send('Not found.\n');
      const sourcePath = shown(resultFile);
      try {
        res.type('html').send(renderRunReport(await loadResult(resultFile, sourcePath), { sourcePath }));
      } catch (error) {
        if (!(error instanceof HarnessError)) throw error;
        res.status(422).type('html').send(renderErrorPage(error.message, sourcePath));
      }
    } catch (error) {
      next(error);
    }
  };
}

// Express's default error page shows the stack and absolute paths: say only what went wrong.
/**
 * @param {any} error  any: whatever a handler threw or express passed on (its http-errors carry a status)
 * @param {import('express').Request} req @param {import('express').Response} res
 * @param {import('express').NextFunction} _next  express tells error handlers by their four parameters
 */
function answerError(error, req, res, _next) {
  const status = Number.isInteger(error?.status) && error.status >= 400 && error.status < 600 ? error.status : 500;
  res.status(status).type('text').send(status === 500 ? 'Internal error: see the serve command\'s output.\n' : 'Bad request.\n');
  if (status === 500) console.error(`serve: ${req.method} ${req.path}: ${error?.message ?? error}`);
}

/**
 * @param {import('express').Express} app @param {number} port @param {string} host
 * @returns {Promise<import('node:http').Server>}
 */
function listen(app, port, host) {
  return new Promise((resolveListen, reject) => {
    const s = app.listen(port, host);
    s.once('listening', () => resolveListen(s));
    s.once('error', (/** @type {NodeJS.ErrnoException} */ error) => {
      reject(error.code === 'EADDRINUSE'
        ? new EnvironmentError(`port ${port} on ${host} is in use: pass another --port (or --port 0 for any free one).`, { cause: error })
        : new EnvironmentError(`cannot listen on ${host}:${port}: ${error.message}`, { cause: error }));
    });
  });
}

/**
 * The Host headers a server on host:port answers: the address as it listens, and localhost on a loopback address.
 * @param {string} host @param {number} port @returns {Set<string>}
 */
function hostHeaders(host, port) {
  const loopback = ['127.0.0.1', '::1'].includes(host);
  const names = [host.includes(':') ? `[${host}]` : host, ...(loopback ? ['localhost'] : [])];
  // A browser leaves the port out of Host when it is the scheme's default.
  return new Set(names.flatMap((name) => [`${name}:${port}`, ...(port === 80 ? [name] : [])]).map((name) => name.toLowerCase()));
}

/**
 * @param {{dir: string, port?: number, host?: string, trendsStore?: string|null}} options port 0 picks a free port;
 *   trendsStore: a results store (file or URL) whose trend dashboard /trends.html renders on each request; opened
 *   here once, read-only, and closed by close()
 * @returns {Promise<{url: string, close: () => Promise<void>}>}
 */
export async function startServer({ dir, port = 8080, host = '127.0.0.1', trendsStore = null }) {
  const served = await servedDirectory(dir);
  const store = trendsStore ? await openStoreReader(trendsStore) : null;
  try {
    return await serving(served, { port, host, store });
  } catch (error) {
    await store?.close();
    throw error;
  }
}

/**
 * @param {Served} served
 * @param {{ port: number, host: string, store: import('../history/store.js').Reader|null }} options
 * @returns {Promise<{url: string, close: () => Promise<void>}>}
 */
async function serving(served, { port, host, store }) {
  /** Host headers this server answers: set once it listens (the port may be chosen by the OS). */
  let allowedHosts = new Set();
  const app = express();
  app.disable('x-powered-by');
  app.use(checkRequest(() => allowedHosts));
  app.get(['/', '/index.html'], async (req, res, next) => {
    try {
      // collectRuns walks real directories only (no symlinks); an unreadable run's message names its file.
      const runs = (await collectRuns(served.root)).map((run) => (run.error ? { ...run, error: served.withoutRoot(run.error) } : run));
      res.type('html').send(renderIndex(runs, { root: basename(served.realRoot) }));
    } catch (error) {
      next(error);
    }
  });
  if (store) app.get('/trends.html', trendsPage(store));
  app.get(/.*/, fileOrReport(served));
  app.use(answerError);

  const server = await listen(app, port, host);
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  allowedHosts = hostHeaders(host, address.port);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${address.port}/`,
    close: async () => {
      await new Promise((done) => {
        server.close(() => done(undefined));
        server.closeAllConnections?.();
      });
      await store?.close();
    },
  };
}
