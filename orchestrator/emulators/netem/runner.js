// The command runner moved to ../runner.js; commands/cleanup.js, netem/cleanup.js and netem/truth.js still
// name this path until they import it from there.
export { createCommandRunner } from '../runner.js';
/** @typedef {import('../runner.js').RunCommand} RunCommand */
