/**
 * The command line of `mdame`: what each command takes, parsing argv into one typed command, and
 * the help text. Pure: no I/O, so tests call it directly.
 */
import { type CommandSpec, type FlagSpec, JSON_FLAG } from "./command-spec.ts";
import { EXIT, UsageError } from "./errors.ts";
import { tiktokHandle } from "./tiktok-connect.ts";
import { ACCOUNT_SPECS, DIMENSION_FIELD_FLAGS, DIMENSION_PUBLISHING_FLAGS, DIMENSION_SPECS, publishingFlagValue } from "./setup-commands.ts";
import { CREDENTIALS_SPECS, type CredentialsRotateCommand, parseCredentialsRotate } from "./commands/credentials.ts";
import { ALERTS_SPECS, type AlertsCommand, parseAlerts } from "./commands/alerts.ts";
import { parseReport, REPORT_SPECS, type ReportCommand } from "./commands/report.ts";
import { ADAPT_SPECS, type AdaptCommand, parseAdapt } from "./commands/adapt.ts";
import { DASHBOARD_SPECS, type DashboardCommand, parseDashboard } from "./commands/dashboard.ts";
import { MCP_SPECS, type McpCommand, parseMcp } from "./commands/mcp.ts";
import { parseStorage, STORAGE_SPECS, type StorageCommand } from "./commands/storage.ts";
import { parseSpend, SPEND_SPECS, type SpendCommand } from "./commands/spend.ts";
import { parseYouTubeProject, YOUTUBE_PROJECT_SPECS, type YouTubeProjectCommand } from "./commands/youtube-project.ts";
import { parseReview, REVIEW_SPECS, type ReviewCommand } from "./commands/review.ts";
import { DIMENSION_ID } from "../shared/contracts/dimension-id.ts";

/** The commands this file parses; the command modules' follow (COMMAND_MODULES). */
const CORE_SPECS: CommandSpec[] = [
  {
    words: ["run"],
    positionals: [],
    flags: [
      { name: "dimension", kind: "string", value: "<id>", description: "only this dimension" },
      { name: "key", kind: "string", value: "<key>", description: "idempotency key of the run (default: one per environment and UTC day)" },
      {
        name: "wait",
        kind: "boolean",
        description: "follow the run's progress until it ends (or waits for review); exit 0 only if it completed or waits for review",
      },
      JSON_FLAG,
    ],
    summary: "start today's run, or find the one already started with the same key",
    details: "Prints the run id and whether it was created or already existed. Without --wait it returns at once.",
  },
  {
    words: ["run", "abort"],
    positionals: [{ name: "run", required: true, description: "the run's id (uuid)" }],
    flags: [{ name: "reason", kind: "string", value: "<text>", description: "why, recorded on the run" }, JSON_FLAG],
    summary: "roll a run back: cancel its queued work, fail its unpublished units, delete the assets only they used",
    details: "Published units and their assets are left alone. Aborting a run that already ended changes nothing.",
  },
  {
    words: ["status"],
    positionals: [{ name: "run", required: false, description: "the run's id (default: the most recent run)" }],
    flags: [
      { name: "list", kind: "boolean", description: "list recent runs instead" },
      { name: "limit", kind: "integer", value: "<n>", description: "how many runs --list shows (default 20)", min: 1, max: 500 },
      JSON_FLAG,
    ],
    summary: "show a run by dimension and unit, or recent runs with --list",
  },
  {
    words: ["dlq", "list"],
    positionals: [],
    flags: [{ name: "limit", kind: "integer", value: "<n>", description: "how many dead letters (default 50)", min: 1, max: 500 }, JSON_FLAG],
    summary: "list dead letters, newest first: messages that used up their attempts",
  },
  {
    words: ["dlq", "retry"],
    positionals: [{ name: "id", required: true, description: "the dead letter's id (from dlq list)" }],
    flags: [JSON_FLAG],
    summary: "queue a dead letter's message again, putting its unit (and run) back where the work stopped",
    details: "A dead letter is retried once; retrying it again exits 5.",
  },
  {
    words: ["doctor"],
    positionals: [],
    flags: [{ name: "timeout", kind: "integer", value: "<s>", description: "time limit of each check in seconds (default 10)", min: 1, max: 120 }, {
      name: "json",
      kind: "boolean",
      description: "print the report as JSON (for scripts)",
    }],
    summary: "check the configuration, database, functions and every provider; say what is wrong and how to fix it",
    details:
      "Reads every variable the components read, each from the environment first, then from .local/stack.env. Exits 0 when no check failed, 1 otherwise.",
  },
  ...DIMENSION_SPECS,
  ...ACCOUNT_SPECS,
];

/**
 * The commands whose module declares them and parses them (cli/commands/): a command of `specs`
 * is parsed by `parse`, so adding one to a module needs nothing here.
 */
const COMMAND_MODULES: { specs: CommandSpec[]; parse: (command: string, positionals: string[], flags: FlagValues) => Command }[] = [
  { specs: YOUTUBE_PROJECT_SPECS, parse: parseYouTubeProject },
  { specs: CREDENTIALS_SPECS, parse: (_command, _positionals, flags) => parseCredentialsRotate(flags) },
  { specs: ALERTS_SPECS, parse: (_command, _positionals, flags) => parseAlerts(flags) },
  { specs: REPORT_SPECS, parse: (_command, _positionals, flags) => parseReport(flags) },
  { specs: ADAPT_SPECS, parse: parseAdapt },
  { specs: REVIEW_SPECS, parse: parseReview },
  { specs: DASHBOARD_SPECS, parse: (_command, _positionals, flags) => parseDashboard(flags) },
  { specs: MCP_SPECS, parse: (_command, _positionals, flags) => parseMcp(flags) },
  { specs: STORAGE_SPECS, parse: (command, _positionals, flags) => parseStorage(command, flags) },
  { specs: SPEND_SPECS, parse: parseSpend },
];
const SPECS: CommandSpec[] = [...CORE_SPECS, ...COMMAND_MODULES.flatMap((module) => module.specs)];

/** One parsed invocation of mdame. */
export type Command =
  | { name: "help"; topic: string | null }
  | { name: "run"; dimension: string | null; key: string | null; wait: boolean; json: boolean }
  | { name: "run abort"; run: string; reason: string | null; json: boolean }
  | { name: "status"; run: string | null; list: boolean; limit: number; json: boolean }
  | { name: "dlq list"; limit: number; json: boolean }
  | { name: "dlq retry"; id: string; json: boolean }
  | { name: "doctor"; json: boolean; timeout: number }
  | { name: "dimension list"; json: boolean }
  | { name: "dimension show"; id: string; json: boolean }
  | { name: "dimension add"; file: string; json: boolean }
  | { name: "dimension schema"; out: string | null }
  | {
    name: "dimension set";
    id: string;
    file: string | null;
    fields: Record<string, string | number>;
    publishing: Record<string, string | boolean | null>;
    json: boolean;
  }
  | { name: "dimension pause" | "dimension resume"; id: string; json: boolean }
  | { name: "account list"; dimension: string | null; json: boolean }
  | {
    name: "account connect";
    platform: "youtube";
    dimension: string;
    channel: string | null;
    /** The registered Google project to connect through; null: the environment's client (default). */
    project: string | null;
    loginHint: string | null;
    timeoutS: number;
    browser: boolean;
    json: boolean;
  }
  | {
    name: "account connect";
    platform: "tiktok";
    dimension: string;
    channel: string;
    loginHint: string | null;
    timeoutS: number;
    browser: boolean;
    json: boolean;
  }
  | {
    name: "account connect";
    platform: "instagram" | "facebook";
    dimension: string;
    /** The Page (name or id; for Instagram also the account's @username); null: the only one the user manages. */
    page: string | null;
    loginHint: string | null;
    timeoutS: number;
    browser: boolean;
    json: boolean;
  }
  | { name: "account pause" | "account resume" | "account remove"; id: string; json: boolean }
  | YouTubeProjectCommand
  | CredentialsRotateCommand
  | AlertsCommand
  | ReportCommand
  | AdaptCommand
  | ReviewCommand
  | DashboardCommand
  | McpCommand
  | StorageCommand
  | SpendCommand;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEAD_LETTER_ID = /^[1-9][0-9]{0,17}$/;
/** The first words that name a group of subcommands (`dlq` of `dlq list`, `dlq retry`). */
const GROUPS = [...new Set(SPECS.filter((s) => s.words.length > 1).map((s) => s.words[0]!))];

function findSpec(words: string[]): CommandSpec | undefined {
  return SPECS.find((s) => s.words.join(" ") === words.join(" "));
}

/** Splits argv into the command's words and the rest: `run abort <id>` is run abort, `run --wait` is run. */
function resolveCommand(argv: string[]): { spec: CommandSpec | null; group: string | null; rest: string[] } {
  const [first, second] = argv;
  if (first === undefined || first.startsWith("-")) return { spec: null, group: null, rest: argv };
  if (second !== undefined && !second.startsWith("-")) {
    const sub = findSpec([first, second]);
    if (sub) return { spec: sub, group: first, rest: argv.slice(2) };
  }
  const spec = findSpec([first]);
  if (spec) return { spec, group: null, rest: argv.slice(1) };
  if (GROUPS.includes(first)) {
    if (second === undefined || second === "--help" || second === "-h") return { spec: null, group: first, rest: argv.slice(1) };
    throw new UsageError(`unknown command: ${first} ${second}`, first);
  }
  throw new UsageError(`unknown command: ${first}`);
}

type FlagValues = Map<string, string | number | boolean>;

function parseRest(spec: CommandSpec, rest: string[]): { positionals: string[]; flags: FlagValues; help: boolean } {
  const command = spec.words.join(" ");
  const positionals: string[] = [];
  const flags: FlagValues = new Map();
  let help = false;
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i]!;
    if (token === "--") {
      positionals.push(...rest.slice(i + 1));
      break;
    }
    if (token === "--help" || token === "-h") {
      help = true;
      continue;
    }
    if (!token.startsWith("-") || token === "-") {
      positionals.push(token);
      continue;
    }
    if (!token.startsWith("--")) throw new UsageError(`unknown flag: ${token}`, command);
    const eq = token.indexOf("=");
    const name = token.slice(2, eq === -1 ? undefined : eq);
    const flag = spec.flags.find((f) => f.name === name);
    if (!flag) throw new UsageError(`unknown flag: --${name}`, command);
    if (flags.has(name)) throw new UsageError(`--${name} is given twice`, command);
    if (flag.kind === "boolean") {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`, command);
      flags.set(name, true);
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = token.slice(eq + 1);
    else if (i + 1 < rest.length && !rest[i + 1]!.startsWith("--")) value = rest[++i];
    if (value === undefined || value === "") throw new UsageError(`--${name} needs a value ${flag.value ?? ""}`.trimEnd(), command);
    if (flag.kind === "integer") {
      const n = Number(value);
      if (!/^[0-9]+$/.test(value) || n < (flag.min ?? 0) || n > (flag.max ?? Number.MAX_SAFE_INTEGER)) {
        throw new UsageError(`--${name} takes a whole number from ${flag.min ?? 0} to ${flag.max}, not ${JSON.stringify(value)}`, command);
      }
      flags.set(name, n);
    } else {
      flags.set(name, value);
    }
  }
  const max = spec.positionals.length;
  if (!help && positionals.length > max) {
    throw new UsageError(
      max === 0 ? `${command} takes no argument (got ${JSON.stringify(positionals[0])})` : `unexpected argument: ${JSON.stringify(positionals[max])}`,
      command,
    );
  }
  const missing = spec.positionals.find((p, i) => p.required && positionals[i] === undefined);
  if (!help && missing) throw new UsageError(`${command} needs <${missing.name}>`, command);
  return { positionals, flags, help };
}

function dimensionId(value: string, command: string): string {
  if (!DIMENSION_ID.test(value)) throw new UsageError(`not a dimension id (lower-case letters, digits, '-' or '_'): ${JSON.stringify(value)}`, command);
  return value;
}

function runId(value: string, command: string): string {
  if (!UUID.test(value)) throw new UsageError(`not a run id (a uuid): ${JSON.stringify(value)}`, command);
  return value.toLowerCase();
}

/**
 * Parses mdame's arguments (argv without the runtime and script) into one command.
 * Throws UsageError, whose `command` names the usage to show.
 */
export function parseArgs(argv: string[]): Command {
  if (argv.length === 0) throw new UsageError("no command given");
  if (argv[0] === "help") {
    const topic = argv.slice(1).join(" ");
    if (topic && !findSpec(argv.slice(1)) && !GROUPS.includes(topic)) throw new UsageError(`no such command: ${topic}`);
    return { name: "help", topic: topic || null };
  }
  const { spec, group, rest } = resolveCommand(argv);
  if (!spec) {
    if (rest.length > 0 && rest.every((t) => t === "--help" || t === "-h")) return { name: "help", topic: group };
    if (group) throw new UsageError(`${group} needs a subcommand`, group);
    throw new UsageError(`unknown flag: ${rest[0]}`);
  }
  const command = spec.words.join(" ");
  const { positionals, flags, help } = parseRest(spec, rest);
  if (help) return { name: "help", topic: command };
  const module = COMMAND_MODULES.find((m) => m.specs.includes(spec));
  if (module) return module.parse(command, positionals, flags);
  const json = flags.get("json") === true;
  const text = (name: string) => (flags.has(name) ? String(flags.get(name)) : null);

  switch (command) {
    case "run": {
      const key = text("key");
      if (key !== null && (key.length < 8 || key.length > 200)) throw new UsageError("--key must be 8 to 200 characters", command);
      return { name: "run", dimension: text("dimension"), key, wait: flags.get("wait") === true, json };
    }
    case "run abort": {
      const reason = text("reason");
      if (reason !== null && reason.trim() === "") throw new UsageError("--reason needs some text", command);
      return { name: "run abort", run: runId(positionals[0]!, command), reason, json };
    }
    case "status": {
      const list = flags.get("list") === true;
      if (list && positionals.length > 0) throw new UsageError("status takes a run or --list, not both", command);
      if (!list && flags.has("limit")) throw new UsageError("--limit goes with --list", command);
      const run = positionals[0] === undefined ? null : runId(positionals[0], command);
      return { name: "status", run, list, limit: (flags.get("limit") as number | undefined) ?? 20, json };
    }
    case "dlq list":
      return { name: "dlq list", limit: (flags.get("limit") as number | undefined) ?? 50, json };
    case "dlq retry": {
      const id = positionals[0]!;
      if (!DEAD_LETTER_ID.test(id)) throw new UsageError(`not a dead-letter id (a positive whole number): ${JSON.stringify(id)}`, command);
      return { name: "dlq retry", id, json };
    }
    case "doctor":
      return { name: "doctor", json, timeout: (flags.get("timeout") as number | undefined) ?? 10 };
    case "dimension list":
      return { name: "dimension list", json };
    case "dimension show":
    case "dimension pause":
    case "dimension resume":
      return { name: command, id: dimensionId(positionals[0]!, command), json };
    case "dimension add": {
      const file = text("file");
      if (file === null) throw new UsageError("dimension add needs --file <config>", command);
      return { name: "dimension add", file, json };
    }
    case "dimension schema":
      return { name: "dimension schema", out: text("out") };
    case "dimension set": {
      const fields: Record<string, string | number> = {};
      for (const f of DIMENSION_FIELD_FLAGS) if (flags.has(f.flag)) fields[f.field] = flags.get(f.flag) as string | number;
      const publishing: Record<string, string | boolean | null> = {};
      for (const f of DIMENSION_PUBLISHING_FLAGS) if (flags.has(f.flag)) publishing[f.field] = publishingFlagValue(flags.get(f.flag) as string);
      const file = text("file");
      if (file === null && Object.keys(fields).length === 0 && Object.keys(publishing).length === 0) {
        throw new UsageError("dimension set needs --file <config> or a field flag (e.g. --daily-limit 2)", command);
      }
      return { name: "dimension set", id: dimensionId(positionals[0]!, command), file, fields, publishing, json };
    }
    case "account list": {
      const dimension = text("dimension");
      return { name: "account list", dimension: dimension === null ? null : dimensionId(dimension, command), json };
    }
    case "account connect": {
      const platform = positionals[0];
      if (platform !== "youtube" && platform !== "tiktok" && platform !== "instagram" && platform !== "facebook") {
        throw new UsageError(`cannot connect ${JSON.stringify(platform)}: the platforms are youtube, tiktok, instagram and facebook`, command);
      }
      const dimension = text("dimension");
      if (dimension === null) throw new UsageError("account connect needs --dimension <id>", command);
      const channel = text("channel");
      if (channel !== null && !/^[^\s<>"]{1,100}$/.test(channel)) {
        throw new UsageError(`--channel takes a handle like @name, not ${JSON.stringify(channel)}`, command);
      }
      const common = {
        name: "account connect" as const,
        dimension: dimensionId(dimension, command),
        loginHint: text("login-hint"),
        timeoutS: (flags.get("timeout") as number | undefined) ?? 300,
        browser: flags.get("no-browser") !== true,
        json,
      };
      const project = text("project");
      const page = text("page");
      if (platform === "instagram" || platform === "facebook") {
        if (project !== null) throw new UsageError(`--project is for youtube: ${platform} accounts are connected through META_APP_ID`, command);
        if (channel !== null) throw new UsageError(`--channel is not for ${platform}: the handle is read from Meta; name the Page with --page`, command);
        if (page !== null && !/^[^<>"\n]{1,100}$/.test(page)) throw new UsageError(`--page takes a Page's name or id, not ${JSON.stringify(page)}`, command);
        return { ...common, platform, page };
      }
      if (page !== null) throw new UsageError("--page is for instagram and facebook", command);
      if (platform === "youtube") {
        if (project !== null && !/^[a-z0-9][a-z0-9-]{0,39}$/.test(project)) {
          throw new UsageError(`--project takes a project's name (see youtube-project list), not ${JSON.stringify(project)}`, command);
        }
        return { ...common, platform, channel, project: project === "default" ? null : project };
      }
      if (project !== null) throw new UsageError("--project is for youtube: a TikTok account is connected through TIKTOK_CLIENT_KEY", command);
      // TikTok's user info does not give the handle with the scopes mdame asks for: the operator names it.
      if (channel === null) {
        throw new UsageError("account connect tiktok needs --channel <@handle>: the TikTok account's handle (mdame does not read it from TikTok)", command);
      }
      const handle = tiktokHandle(channel);
      if (handle === null) throw new UsageError(`--channel takes a handle like @name, not ${JSON.stringify(channel)}`, command);
      return { ...common, platform, channel: handle };
    }
    case "account pause":
    case "account resume":
    case "account remove": {
      const id = positionals[0]!;
      if (!UUID.test(id)) throw new UsageError(`not an account id (a uuid): ${JSON.stringify(id)}`, command);
      return { name: command, id: id.toLowerCase(), json };
    }
  }
  throw new UsageError(`unknown command: ${command}`);
}

function flagLine(flag: FlagSpec): string {
  return `--${flag.name}${flag.value ? ` ${flag.value}` : ""}`;
}

function synopsis(spec: CommandSpec): string {
  const args = spec.positionals.map((p) => (p.required ? `<${p.name}>` : `[${p.name}]`));
  const flags = spec.flags.map((f) => `[${flagLine(f)}]`);
  return ["mdame", ...spec.words, ...args, ...flags].join(" ");
}

const EXIT_CODES_HELP = [
  "Exit codes:",
  `  ${EXIT.ok}  success (run --wait: the run completed)`,
  `  ${EXIT.failure}  the run failed or was rolled back (run --wait), or the API answered another error`,
  `  ${EXIT.usage}  usage error: unknown command or flag, bad value, FUNCTIONS_URL/SERVICE_ROLE_KEY missing`,
  `  ${EXIT.unauthorized}  the service-role key was refused (HTTP 401)`,
  `  ${EXIT.notFound}  not found (HTTP 404): no such run, dead letter, dimension or account`,
  `  ${EXIT.conflict}  conflict (HTTP 409): the state forbids it, or the dimension exists`,
  `  ${EXIT.unreachable}  cannot reach the API (network error)`,
];

const ENVIRONMENT_HELP = [
  "Environment:",
  "  FUNCTIONS_URL      base URL of the Edge Functions (e.g. https://<project>.supabase.co/functions/v1)",
  "  SERVICE_ROLE_KEY   the service-role key, sent as a bearer token",
  "  Set both, or neither to use the local stack's .local/stack.env.",
];

/** The general help: every command, the environment and the exit codes. */
export function mainHelp(): string {
  const width = Math.max(...SPECS.map((s) => s.words.join(" ").length));
  return [
    "mdame: operate the MD-AME engine through its HTTP API",
    "",
    "Usage: mdame <command> [arguments] [flags]",
    "",
    "Commands:",
    ...SPECS.map((s) => `  ${s.words.join(" ").padEnd(width)}  ${s.summary}`),
    "",
    "Run `mdame <command> --help` for a command's arguments and flags.",
    "",
    ...ENVIRONMENT_HELP,
    "",
    ...EXIT_CODES_HELP,
    "",
  ].join("\n");
}

/** Help of one command (`run abort`) or of a group (`dlq`); the general help when unknown. */
export function commandHelp(topic: string | null): string {
  if (topic === null) return mainHelp();
  const spec = findSpec(topic.split(" "));
  const members = SPECS.filter((s) => s.words[0] === topic && s.words.length > 1);
  if (!spec && members.length === 0) return mainHelp();
  const lines: string[] = [];
  if (spec) {
    lines.push(`Usage: ${synopsis(spec)}`, "", `${spec.summary[0]!.toUpperCase()}${spec.summary.slice(1)}.`);
    if (spec.details) lines.push(spec.details);
    const rows = [
      ...spec.positionals.map((p) => [`<${p.name}>`, p.description]),
      ...spec.flags.map((f) => [flagLine(f), f.description]),
    ];
    if (rows.length > 0) {
      const width = Math.max(...rows.map((r) => r[0]!.length));
      lines.push("", ...rows.map(([left, right]) => `  ${left!.padEnd(width)}  ${right}`));
    }
  }
  if (members.length > 0) {
    if (spec) lines.push("", "Subcommands:");
    else lines.push(`Usage: mdame ${topic} <subcommand>`, "", "Subcommands:");
    lines.push(...members.map((m) => `  ${synopsis(m)}\n      ${m.summary}`));
  }
  lines.push("", ...EXIT_CODES_HELP, "");
  return lines.join("\n");
}

/** The short usage printed with a usage error. */
export function usageFor(command: string | undefined): string {
  const spec = command ? findSpec(command.split(" ")) : undefined;
  if (spec) return `usage: ${synopsis(spec)}\nRun \`mdame ${command} --help\` for details.`;
  const members = command ? SPECS.filter((s) => s.words[0] === command) : [];
  if (members.length > 0) return `usage:\n${members.map((m) => `  ${synopsis(m)}`).join("\n")}`;
  return `usage: mdame <command> [arguments] [flags]\ncommands: ${SPECS.map((s) => s.words.join(" ")).join(", ")}\nRun \`mdame --help\` for details.`;
}
