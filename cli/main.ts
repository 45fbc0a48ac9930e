/**
 * mdame's entry, as a function of argv and the process's streams so tests run it in-process:
 * parse, resolve where the API is, run one command, return the exit code.
 */
import { paths } from "../stack/paths.ts";
import { type ApiClient, createApiClient, type Fetch } from "./api-client.ts";
import { commandHelp, parseArgs, usageFor } from "./args.ts";
import { abortCommand } from "./commands/abort.ts";
import { accountActiveCommand, accountConnectCommand, accountListCommand, accountRemoveCommand, connectSignIn } from "./commands/account.ts";
import { youtubeProjectCommand } from "./commands/youtube-project.ts";
import {
  dimensionActiveCommand,
  dimensionAddCommand,
  dimensionListCommand,
  dimensionSchemaCommand,
  dimensionSetCommand,
  dimensionShowCommand,
} from "./commands/dimension.ts";
import { credentialsRotateCommand } from "./commands/credentials.ts";
import { dlqListCommand, dlqRetryCommand } from "./commands/dlq.ts";
import { alertsCommand } from "./commands/alerts.ts";
import { adaptCommand } from "./commands/adapt.ts";
import { reviewCommand } from "./commands/review.ts";
import { reportCommand } from "./commands/report.ts";
import { runCommand } from "./commands/run.ts";
import { statusCommand } from "./commands/status.ts";
import { storageCommand } from "./commands/storage.ts";
import { spendCommand } from "./commands/spend.ts";
import { resolveApiConfig } from "./config.ts";
import { CliError, EXIT, UsageError } from "./errors.ts";
import { type CommandContext, println, type Screen } from "./output.ts";

interface CliIo {
  out: Screen;
  err: Screen;
  env: Record<string, string | undefined>;
  /** The local stack's environment file, read when FUNCTIONS_URL and SERVICE_ROLE_KEY are unset. */
  stackEnvFile?: string;
  fetch?: Fetch;
  /** All of stdin as text, or null when it is a terminal (nothing piped); read only by commands that take a secret. */
  stdin?: () => Promise<string | null>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Runs one mdame invocation; never throws. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const ctx: CommandContext = {
    out: io.out,
    err: io.err,
    now: io.now ?? Date.now,
    sleep: io.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  };
  try {
    const command = parseArgs(argv);
    if (command.name === "help") {
      io.out.write(commandHelp(command.topic));
      return EXIT.ok;
    }
    // Doctor reads the whole configuration itself, and must run when FUNCTIONS_URL is missing.
    // Doctor and the dashboard are loaded when asked for, as Google's client libraries are (account
    // connect youtube): loaded up front, the three took every command's start-up from 0.21 s to 0.35 s.
    if (command.name === "doctor") {
      const { doctorCommand } = await import("./commands/doctor.ts");
      return await doctorCommand(command, { out: io.out, env: io.env, stackEnvFile: io.stackEnvFile ?? paths.stackEnv });
    }
    // The schema comes from the contract alone: no API needed.
    if (command.name === "dimension schema") return dimensionSchemaCommand(command, ctx);
    const config = resolveApiConfig(io.env, io.stackEnvFile ?? paths.stackEnv);
    const api: ApiClient = createApiClient(config, io.fetch);
    try {
      switch (command.name) {
        case "run":
          return await runCommand(command, api, ctx);
        case "run abort":
          return await abortCommand(command, api, ctx);
        case "status":
          return await statusCommand(command, api, ctx);
        case "dlq list":
          return await dlqListCommand(command, api, ctx);
        case "dlq retry":
          return await dlqRetryCommand(command, api, ctx);
        case "dimension list":
          return await dimensionListCommand(command, api, ctx);
        case "dimension show":
          return await dimensionShowCommand(command, api, ctx);
        case "dimension add":
          return await dimensionAddCommand(command, api, ctx);
        case "dimension set":
          return await dimensionSetCommand(command, api, ctx);
        case "dimension pause":
        case "dimension resume":
          return await dimensionActiveCommand(command, command.name === "dimension resume", api, ctx);
        case "account list":
          return await accountListCommand(command, api, ctx);
        case "account connect":
          return await accountConnectCommand(command, api, await connectSignIn(command, io.env, config, api), ctx);
        case "account pause":
        case "account resume":
          return await accountActiveCommand(command, command.name === "account resume", api, ctx);
        case "account remove":
          return await accountRemoveCommand(command, api, ctx);
        case "youtube-project list":
        case "youtube-project add":
        case "youtube-project remove":
          return await youtubeProjectCommand(command, api, ctx, { env: io.env, stdin: io.stdin });
        case "credentials rotate":
          return await credentialsRotateCommand(command, api, ctx);
        case "alerts":
          return await alertsCommand(command, api, ctx);
        case "report":
          return await reportCommand(command, api, ctx);
        case "adapt":
        case "adapt list":
        case "adapt revert":
        case "adapt pin":
        case "adapt unpin":
          return await adaptCommand(command, api, ctx);
        case "review list":
        case "review show":
        case "review approve":
        case "review reject":
          return await reviewCommand(command, api, ctx);
        case "dashboard": {
          const [{ dashboardCommand }, { createDashboardApi }] = await Promise.all([import("./commands/dashboard.ts"), import("./dashboard/ops-client.ts")]);
          return await dashboardCommand(command, createDashboardApi(config, io.fetch), ctx);
        }
        case "mcp": {
          const [{ mcpCommand }, { createDashboardApi }] = await Promise.all([import("./commands/mcp.ts"), import("./dashboard/ops-client.ts")]);
          return await mcpCommand(command, createDashboardApi(config, io.fetch), ctx, { env: io.env });
        }
        case "storage usage":
        case "housekeeping":
        case "housekeeping settings":
          return await storageCommand(command, api, ctx);
        case "spend":
        case "prices list":
        case "prices set":
        case "prices reset":
          return await spendCommand(command, api, ctx);
      }
    } catch (error) {
      if (error instanceof CliError && error.exitCode === EXIT.unreachable && config.source !== "environment") {
        throw new CliError(`${error.message}\n(address from ${config.source}: is the local stack running? \`npm run stack\`)`, error.exitCode);
      }
      throw error;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      println(io.err, `mdame: ${error.message}`);
      println(io.err, usageFor(error.command));
      return error.exitCode;
    }
    if (error instanceof CliError) {
      println(io.err, `mdame: ${error.message}`);
      return error.exitCode;
    }
    println(io.err, `mdame: unexpected error: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.failure;
  }
}
