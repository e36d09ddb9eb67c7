// Browses a results directory over HTTP on 127.0.0.1: the index is rendered on each request (so
// new runs appear), reports are served from disk, or rendered on the fly when a run has none.

import { resolve, sep, join, dirname } from 'node:path';
import { stat } from 'node:fs/promises';
import express from 'express';
import { EnvironmentError, HarnessError, InputError } from '../lib/errors.js';
import { collectRuns, loadResult } from './write.js';
import { renderIndex } from './render-index.js';
import { renderRunReport } from './render-run.js';
import { renderErrorPage } from './render-error.js';

/**
 * @param {{dir: string, port?: number, host?: string}} options port 0 picks a free port
 * @returns {Promise<{url: string, close: () => Promise<void>}>}
 */
export async function startServer({ dir, port = 8080, host = '127.0.0.1' }) {
  const root = resolve(dir);
  const info = await stat(root).catch(() => null);
  if (!info?.isDirectory()) throw new InputError(`--dir ${dir} is not a directory: pass the results directory (default: results).`);

  const app = express();
  app.disable('x-powered-by');
  app.get(['/', '/index.html'], async (req, res, next) => {
    try {
      res.type('html').send(renderIndex(await collectRuns(root), { root: dir }));
    } catch (error) {
      next(error);
    }
  });
  // A run without report.html (an old run, or one rendered by a different version): render it now.
  app.get(/\/report\.html$/, async (req, res, next) => {
    const file = resolve(root, `.${decodeURIComponent(req.path)}`);
    if (!file.startsWith(root + sep)) return res.status(404).end();
    if (await stat(file).then((s) => s.isFile(), () => false)) return next();
    const resultFile = join(dirname(file), 'result.json');
    if (!(await stat(resultFile).then((s) => s.isFile(), () => false))) return next();
    try {
      res.type('html').send(renderRunReport(await loadResult(resultFile), { sourcePath: resultFile }));
    } catch (error) {
      if (!(error instanceof HarnessError)) return next(error);
      res.status(422).type('html').send(renderErrorPage(error.message, resultFile));
    }
  });
  app.use(express.static(root, { index: false, dotfiles: 'ignore' }));

  const server = await new Promise((resolveListen, reject) => {
    const s = app.listen(port, host);
    s.once('listening', () => resolveListen(s));
    s.once('error', (error) => {
      reject(error.code === 'EADDRINUSE'
        ? new EnvironmentError(`port ${port} on ${host} is in use: pass another --port (or --port 0 for any free one).`, { cause: error })
        : new EnvironmentError(`cannot listen on ${host}:${port}: ${error.message}`, { cause: error }));
    });
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://${host}:${address.port}/`,
    close: () => new Promise((done) => {
      server.close(() => done());
      server.closeAllConnections?.();
    }),
  };
}
