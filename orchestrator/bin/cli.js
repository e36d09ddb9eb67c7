#!/usr/bin/env node
/// <reference path="./yargs.d.ts" />
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { commands } from '../commands/index.js';
import { HarnessError, errorStack } from '../lib/system/errors.js';

const cli = yargs(hideBin(process.argv))
  .scriptName('webrtc-testbed')
  .command(commands)
  .demandCommand(1, 'Name a command: see the list above.')
  .strict()
  .recommendCommands()
  .help()
  .fail((message, error, y) => {
    if (error) throw error;
    console.error(`${y.help()}\n\n${message}`);
    process.exit(2);
  });

try {
  await cli.parseAsync();
} catch (error) {
  console.error(`error: ${error instanceof HarnessError ? error.message : errorStack(error)}`);
  process.exitCode = error instanceof HarnessError ? error.exitCode : 1;
}
