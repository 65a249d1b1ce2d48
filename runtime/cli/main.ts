/**
 * The `syncline` command line. Each command lives in its own file, imported only when it runs,
 * so `validate` in CI does not pay for loading the HTTP server; this file wires them to commander
 * and maps usage errors to exit code 2.
 */
import { Argument, Command, CommanderError, Option } from 'commander';
import { packageVersion } from '../package-info.js';
import type { DaemonFlags } from './daemon-command.js';
import type { RunFlags } from './run-start.js';
import { completionShells, type CompletionShell } from './completion/completion-scripts.js';
import { validateFormats } from './reports/validate-formats.js';
import type { ServeCommandFlags } from './serve-command.js';

/** Exit codes: 0 success, 1 problems found (or the command failed), 2 unusable arguments. */
export const exitUsage = 2;

/**
 * The whole command line as a commander program; each action hands its exit code to
 * `setExitCode`. Completion reads its commands and options from here (completion/complete-words.ts).
 */
export function synclineProgram(setExitCode: (code: number) => void): Command {
  const program = new Command()
    .name('syncline')
    .description('Declarative integration runtime: systems, syncs, webhooks and flows as YAML.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) })
    .showHelpAfterError('(run syncline --help for usage)');

  program
    .command('validate')
    .description('check definition files; one line per problem: file:line:col: Kind/id: message')
    .argument('<dir...>', 'definitions directories or files')
    .addOption(
      new Option('--format <format>', 'the report: github writes Actions annotations, junit a test report, sarif a code scanning log')
        .choices(validateFormats)
        .default('text'),
    )
    .option('--strict', 'warnings fail the check too (exit 1)')
    .action(async (dirs: string[], options: { format: string; strict?: boolean }) => {
      const { validateCommand } = await import('./validate-command.js');
      setExitCode(await validateCommand(dirs, options));
    });

  program
    .command('test')
    .description('run the cases of test files (*.test.yaml) offline against the definitions they test (exit 1 when a case fails)')
    .argument('[dir...]', 'directories or test files (default: the definitions directory)')
    .addOption(new Option('--format <format>', 'the report: junit for CI test reports').choices(['text', 'json', 'junit']).default('text'))
    .option('--definitions <dir>', 'the definitions under test (default: each directory given; env SYNCLINE_DEFINITIONS without one)')
    .action(async (dirs: string[], options: { format: string; definitions?: string }) => {
      const { testCommand } = await import('./test-command.js');
      setExitCode(await testCommand(dirs, options));
    });

  program
    .command('schema')
    .description('write the JSON Schema of definition files, for editors (yaml-language-server)')
    .option('--out <file>', 'write to this file instead of standard output')
    .action(async (options: { out?: string }) => {
      const { schemaCommand } = await import('./schema-command.js');
      setExitCode(await schemaCommand(options));
    });

  program
    .command('docs')
    .description('rewrite the generated property tables of the definition reference from the JSON Schemas')
    .option('--dir <dir>', 'the reference pages (docs/definitions of this checkout)')
    .action(async (options: { dir?: string }) => {
      const { docsCommand } = await import('./docs-command.js');
      setExitCode(await docsCommand(options));
    });

  program
    .command('serve')
    .description('serve the definitions over HTTP, reloading them when files change')
    .option('--definitions <dir>', 'definitions directory (env SYNCLINE_DEFINITIONS)')
    .option('--port <port>', 'port to listen on (env SYNCLINE_PORT)')
    .option('--host <host>', 'address to listen on (env SYNCLINE_HOST)')
    .option('--body-limit <size>', 'largest request body, e.g. 1mib (env SYNCLINE_BODY_LIMIT)')
    .option('--headers-timeout <duration>', 'time a client has to send the request headers, e.g. 10s (env SYNCLINE_HEADERS_TIMEOUT)')
    .option('--request-timeout <duration>', 'time a client has to send the whole request, e.g. 30s (env SYNCLINE_REQUEST_TIMEOUT)')
    .option('--keep-alive-timeout <duration>', 'how long an idle connection stays open, e.g. 5s (env SYNCLINE_KEEP_ALIVE_TIMEOUT)')
    .option('--max-connections <n>', 'most connections open at once (env SYNCLINE_MAX_CONNECTIONS)')
    .option('--db <url>', 'runtime database: postgres://…, mysql://…, sqlite:file.db or a file (env SYNCLINE_DB)')
    .option('--concurrency <n>', 'queue items run at once (env SYNCLINE_CONCURRENCY)')
    .option('--no-daemon', 'serve the API only; queued items stay Pending until a daemon runs them')
    .action(async (options: ServeCommandFlags & { daemon: boolean }) => {
      const { serveCommand } = await import('./serve-command.js');
      setExitCode(await serveCommand(options));
    });

  program
    .command('daemon')
    .description('run the queue daemon and scheduler without the HTTP API (a scale-out worker)')
    .option('--definitions <dir>', 'definitions directory (env SYNCLINE_DEFINITIONS)')
    .option('--db <url>', 'runtime database: postgres://…, mysql://…, sqlite:file.db or a file (env SYNCLINE_DB)')
    .option('--concurrency <n>', 'queue items run at once (env SYNCLINE_CONCURRENCY)')
    .option('--http-port <port>', 'answer /healthz, /readyz and /metrics on this port (env SYNCLINE_DAEMON_HTTP_PORT; default: none)')
    .option('--http-host <host>', 'address of the probe port (env SYNCLINE_DAEMON_HTTP_HOST, then SYNCLINE_HOST; default 127.0.0.1)')
    .action(async (options: DaemonFlags) => {
      const { daemonCommand } = await import('./daemon-command.js');
      setExitCode(await daemonCommand(options));
    });

  program
    .command('migrate')
    .description('create or upgrade the runtime database')
    .option('--db <url>', 'runtime database: postgres://…, mysql://…, sqlite:file.db or a file (env SYNCLINE_DB)')
    .action(async (options: { db?: string }) => {
      const { migrateCommand } = await import('./migrate-command.js');
      setExitCode(await migrateCommand(options));
    });

  program
    .command('run')
    .description(
      'run a sync or flow now, in this process, with progress and a statistics table (exit 1 when it fails or records fail); --dry-run plans it instead',
    )
    .argument('<id>', 'the sync or flow to run')
    .option('--definitions <dir>', 'definitions directory (env SYNCLINE_DEFINITIONS)')
    .option('--db <url>', 'runtime database: postgres://…, mysql://…, sqlite:file.db or a file (env SYNCLINE_DB)')
    .option('--where <filter>', "WhereClause: AND-ed with the sync's own filter")
    .option(
      '--param <name=value>',
      'an action parameter ($params.name, #params.name#); repeat for more',
      (value: string, list: string[] = []) => [...list, value],
    )
    .option('--full', 'a sync with a cursor reads every record, not only those past its mark (action parameter FULL_RUN=true)')
    .option('--dry-run', 'read and match for real, write nothing, and print the plan: creates, updates field by field, skips, failures')
    .addOption(new Option('--format <format>', 'the plan as text or one JSON document (with --dry-run)').choices(['text', 'json']))
    .option('--verbose', 'list unchanged records too, and every record of each section (with --dry-run)')
    .action(async (id: string, options: RunFlags) => {
      if (options.dryRun) {
        const { dryRunCommand } = await import('./dry-run-command.js');
        setExitCode(await dryRunCommand(id, options));
        return;
      }
      if (options.format !== undefined || options.verbose) {
        process.stderr.write(`error: ${options.format !== undefined ? '--format' : '--verbose'} is for the plan of --dry-run\n`);
        setExitCode(exitUsage);
        return;
      }
      const { runCommand } = await import('./run-command.js');
      setExitCode(await runCommand(id, options));
    });

  program
    .command('discover')
    .description(
      "print a system's objects (tables and views, entity sets, files) as object definitions to paste under its System's objects: (exit 1 when it cannot be reached)",
    )
    .argument('<system>', 'the system, as the definitions name it')
    .option('--definitions <dir>', 'definitions directory (env SYNCLINE_DEFINITIONS)')
    .option('--object <name>', 'only this object (a table, an entity set, a file)')
    .action(async (system: string, options: { definitions?: string; object?: string }) => {
      const { discoverCommand } = await import('./discover-command.js');
      setExitCode(await discoverCommand(system, options));
    });

  const webhook = program.command('webhook').description('work with webhooks');
  webhook
    .command('new')
    .description('write a new Webhook definition with an unguessable id (to standard output, or appended to --out)')
    .option('--name <name>', 'administrative label')
    .option('--sync <id>', 'the sync the webhook starts')
    .option('--out <file>', 'append the definition to this YAML file')
    .action(async (options: { name?: string; sync?: string; out?: string }) => {
      const { webhookNewCommand } = await import('./webhook-new-command.js');
      setExitCode(await webhookNewCommand(options));
    });
  webhook
    .command('test')
    .description(
      "call a webhook for real through a running server's test API and print sent data, the ticker live, and the status and body received (exit 1 unless 2xx)",
    )
    .argument('<id>', 'the webhook')
    .option('--data <file>', 'send the JSON in this file (- for standard input)')
    .option('--pin <logId>', 'send the request of this pinned log entry again')
    .option('--url <url>', 'the server (env SYNCLINE_URL; default http://127.0.0.1:3000)')
    .option('--token <token>', 'a token with the console scope (env SYNCLINE_TOKEN, then SYNCLINE_ADMIN_TOKEN)')
    .action(async (id: string, options: { data?: string; pin?: string; url?: string; token?: string }) => {
      const { webhookTestCommand } = await import('./webhook-test-command.js');
      setExitCode(await webhookTestCommand(id, options));
    });

  program
    .command('completion')
    .description('print the completion script of a shell; docs/cli.md says how to install it')
    .addArgument(new Argument('<shell>', 'the shell').choices(completionShells))
    .action(async (shell: CompletionShell) => {
      const { completionCommand } = await import('./completion/completion-command.js');
      setExitCode(completionCommand(shell));
    });

  // What the completion scripts ask on Tab: the candidates for the last of the words after `--`.
  program
    .command('__complete', { hidden: true })
    .argument('[words...]')
    .helpOption(false)
    .action(async (words: string[]) => {
      const { completeCommand } = await import('./completion/completion-command.js');
      setExitCode(await completeCommand(program, words));
    });

  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  let exitCode = 0;
  const program = synclineProgram((code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version are not failures.
      return error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? 0 : exitUsage;
    }
    throw error;
  }
  return exitCode;
}
