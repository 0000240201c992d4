import type { Writable } from 'node:stream';
import { codehost } from './codehost/app.js';
import type { CodehostSettings } from './codehost/config.js';
import { embeddedSignIn } from './embedded-sign-in.js';
import { type Command, type CommandContext, UsageError } from './platform/cli/command.js';
import { commandHelp, commandList, usageReminder } from './platform/cli/help.js';
import { serviceCommands } from './platform/cli/service-commands.js';
import {
  type Config,
  ConfigError,
  describeDatabase,
  loadConfig,
  type ServiceConfig,
  serviceSection,
} from './platform/config.js';
import { environmentWithEnvFile } from './platform/env-file.js';
import type { ServiceDefinition } from './platform/service.js';
import { refdata } from './refdata/app.js';
import { refdataLoginCommand } from './refdata/client/login-command.js';
import type { RefdataSettings } from './refdata/config.js';

/** Both services, in the order they start. This is the one place that knows both. */
export const SERVICES: readonly ServiceDefinition[] = [
  codehost as ServiceDefinition,
  refdata as ServiceDefinition,
];

export const PROGRAM = 'codehost-refdata';

/** The configuration with both services' sections, typed: what the program and its tests read. */
export type ProgramConfig = Config & {
  services: { codehost: ServiceConfig; refdata: ServiceConfig };
  settings: { codehost: CodehostSettings; refdata: RefdataSettings };
};

/** Reads the configuration of both services, each section by its service's own reader. */
export function loadProgramConfig(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string = process.cwd(),
): ProgramConfig {
  // loadConfig gives each of SERVICES its section, read by the service's own reader.
  return loadConfig(env, SERVICES, cwd) as ProgramConfig;
}

export function allCommands(): Command[] {
  return [
    ...serviceCommands(SERVICES, embeddedSignIn()),
    ...SERVICES.flatMap((service) => service.adminCommands),
    // A client of a running refdata, not an admin command: it reads no service's files.
    refdataLoginCommand,
  ];
}

export interface ProgramIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout: Writable;
  stderr: Writable;
  /** The `.env` file merged under the environment; none in tests. */
  envFile?: string;
}

/**
 * Runs one command line. Returns the exit status, or 'running' when servers were
 * started and the process should stay up.
 */
export async function runProgram(argv: string[], io: ProgramIo): Promise<number | 'running'> {
  const commands = allCommands();
  const [name, ...args] = argv;
  if (name === undefined) {
    io.stderr.write(commandList(PROGRAM, commands));
    return 2;
  }
  if (name === 'help' || name === '--help' || name === '-h') {
    const [topic] = args;
    const command = commands.find((candidate) => candidate.name === topic);
    io.stdout.write(command ? commandHelp(PROGRAM, command) : commandList(PROGRAM, commands));
    return topic === undefined || command ? 0 : 2;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) {
    io.stderr.write(`Unknown command "${name}".\n${commandList(PROGRAM, commands)}`);
    return 2;
  }
  // Asking for help never runs the command, wherever --help stands.
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(commandHelp(PROGRAM, command));
    return 0;
  }
  let config: Config | undefined;
  const context: CommandContext = {
    config: () => {
      const env = io.envFile ? environmentWithEnvFile(io.env, io.envFile) : io.env;
      config ??= loadProgramConfig(env);
      return config;
    },
    stdout: io.stdout,
    stderr: io.stderr,
  };
  const owner = SERVICES.find((service) => service.adminCommands.includes(command));
  try {
    // An admin command acts on one service's files: say which, so a command run
    // from another directory or with other settings than the service is noticed.
    if (owner) {
      const config = context.config();
      io.stderr.write(
        `${owner.name}: data directory ${config.dataDir}; database ${describeDatabase(serviceSection(config, owner.name).database)}\n`,
      );
    }
    return await command.run(args, context);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${error.message}\n${usageReminder(PROGRAM, command)}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.stderr.write(`${error.message}\n`);
      return 1;
    }
    io.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
