// One yargs command module per CLI command; add new ones here.
import * as baseline from './baseline.js';
import * as calibrate from './calibrate.js';
import * as catalog from './catalog.js';
import * as cleanup from './cleanup.js';
import * as compare from './compare.js';
import * as exportScript from './export-script.js';
import * as gridHub from './grid-hub.js';
import * as gridNode from './grid-node.js';
import * as history from './history.js';
import * as list from './list.js';
import * as merge from './merge.js';
import * as report from './report.js';
import * as reproduce from './reproduce.js';
import * as scenario from './scenario.js';
import * as serve from './serve.js';
import * as suite from './suite.js';
import * as trace from './trace.js';

export const commands = [
  scenario, list, calibrate, report, compare, serve, exportScript, cleanup, suite, baseline, merge, reproduce, trace, catalog,
  history, gridHub, gridNode,
];
