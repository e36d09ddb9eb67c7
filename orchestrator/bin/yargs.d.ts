// yargs 18 ships no declarations for its Node entry and @types/yargs is not a dependency: this declares the part
// of its API the commands use, so builders are checked. Handlers type their own argv (see each command).
declare module 'yargs' {
  export interface Options {
    type?: 'string' | 'number' | 'boolean' | 'array';
    describe?: string;
    description?: string;
    default?: unknown;
    defaultDescription?: string;
    choices?: ReadonlyArray<string | number>;
    array?: boolean;
    string?: boolean;
    demandOption?: boolean | string;
    group?: string;
  }
  /** The parsed command line: yargs adds each option under its name and its camelCase name. */
  export interface Arguments {
    _: Array<string | number>;
    $0: string;
    [name: string]: any; // any: yargs infers each option's type along the builder chain, which this file does not model
  }
  /** A command module as orchestrator/commands/*.js export it; each handler declares the argv it reads. */
  export interface CommandModule {
    command: string | ReadonlyArray<string>;
    describe: string;
    builder?: ((yargs: Argv) => Argv) | Record<string, Options>;
    handler?: (argv: never) => unknown; // none when subcommands do the work
  }
  export interface Argv {
    option(name: string, options: Options): Argv;
    positional(name: string, options: Options): Argv;
    command(modules: ReadonlyArray<CommandModule>): Argv;
    command(command: string, description: string, builder: (yargs: Argv) => Argv, handler: (argv: never) => unknown): Argv;
    check(check: (argv: Arguments) => boolean): Argv;
    example(command: string, description: string): Argv;
    epilogue(text: string): Argv;
    demandCommand(min: number, message: string): Argv;
    scriptName(name: string): Argv;
    strict(): Argv;
    recommendCommands(): Argv;
    help(): Argv;
    fail(handler: (message: string, error: Error | undefined, yargs: Argv) => void): Argv;
    parseAsync(): Promise<Arguments>;
  }
  export default function yargs(args: ReadonlyArray<string>): Argv;
}

declare module 'yargs/helpers' {
  export function hideBin(argv: ReadonlyArray<string>): string[];
}
