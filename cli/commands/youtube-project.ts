/**
 * `mdame youtube-project add|list|remove`: the Google projects (OAuth clients) whose YouTube quota
 * the channels spend, each with its own daily buckets (docs/reference/distribution.md, "Several Google
 * projects"). The client secret is read from YOUTUBE_PROJECT_CLIENT_SECRET or from stdin, never
 * from argv (which other users of the machine can read), and sealed by the API.
 */
import { type RegisterYouTubeProjectBody, type YouTubeProject, YouTubeProjectName } from "../../shared/contracts/youtube-project.ts";
import type { ApiClient } from "../api-client.ts";
import { type CommandSpec, JSON_FLAG } from "../command-spec.ts";
import { CliError, EXIT, UsageError } from "../errors.ts";
import { type CommandContext, formatTable, printJson, printLine, printLines } from "../output.ts";

/** Where `youtube-project add` reads the client secret from when stdin is a terminal. */
export const CLIENT_SECRET_ENV = "YOUTUBE_PROJECT_CLIENT_SECRET";

const SIZE_FLAGS = [
  { flag: "upload-calls-per-day", field: "upload_calls_per_day", description: "videos.insert calls a day YouTube granted the project (default 100)" },
  { flag: "api-units-per-day", field: "api_units_per_day", description: "Data API units a day (default 10000)" },
  { flag: "analytics-queries-per-day", field: "analytics_queries_per_day", description: "YouTube Analytics queries a day (default 10000)" },
  { flag: "stats-units-per-day", field: "stats_units_per_day", description: "videos.batchGetStats units a day (default 10000)" },
] as const;

export type YouTubeProjectCommand =
  | { name: "youtube-project list"; json: boolean }
  | { name: "youtube-project add"; project: string; clientId: string; sizes: Partial<Record<(typeof SIZE_FLAGS)[number]["field"], number>>; json: boolean }
  | { name: "youtube-project remove"; project: string; json: boolean };

export const YOUTUBE_PROJECT_SPECS: CommandSpec[] = [
  {
    words: ["youtube-project", "list"],
    positionals: [],
    flags: [JSON_FLAG],
    summary: "list the Google projects: their upload bucket, accounts, planned uploads a day and uploads today",
  },
  {
    words: ["youtube-project", "add"],
    positionals: [],
    flags: [
      { name: "name", kind: "string", value: "<name>", description: "a short name for the project: lower-case letters, digits, dashes (required)" },
      { name: "client-id", kind: "string", value: "<id>", description: "the project's OAuth client id, a Desktop app client (required)" },
      ...SIZE_FLAGS.map((f) => ({ name: f.flag, kind: "integer" as const, value: "<n>", description: f.description, min: 0, max: 100_000_000 })),
      JSON_FLAG,
    ],
    summary: "register another Google project (OAuth client): its own 100 uploads a day",
    details: `The client secret is read from ${CLIENT_SECRET_ENV}, or from stdin (\`mdame youtube-project add ... < secret.txt\`), never ` +
      "from an argument. The API seals it with CREDENTIALS_KEY. Connect channels through it with " +
      "`mdame account connect youtube --dimension <id> --project <name>`. The name default is the environment's " +
      "GOOGLE_OAUTH_CLIENT_ID. A name or client id registered already exits 5.",
  },
  {
    words: ["youtube-project", "remove"],
    positionals: [{ name: "name", required: true, description: "the project's name (see youtube-project list)" }],
    flags: [JSON_FLAG],
    summary: "unregister a Google project (refused while accounts with credentials were connected through it)",
  },
];

function projectName(value: string, command: string): string {
  const parsed = YouTubeProjectName.safeParse(value);
  if (!parsed.success) throw new UsageError(`not a project name (${parsed.error.issues[0]!.message}): ${JSON.stringify(value)}`, command);
  return parsed.data;
}

/** Parses `youtube-project ...` (args.ts has checked the flags' kinds and bounds). */
export function parseYouTubeProject(command: string, positionals: string[], flags: Map<string, string | number | boolean>): YouTubeProjectCommand {
  const json = flags.get("json") === true;
  if (command === "youtube-project list") return { name: "youtube-project list", json };
  if (command === "youtube-project remove") return { name: "youtube-project remove", project: projectName(positionals[0]!, command), json };
  const name = flags.get("name");
  const clientId = flags.get("client-id");
  if (typeof name !== "string") throw new UsageError("youtube-project add needs --name <name>", command);
  if (typeof clientId !== "string" || clientId.trim() === "") throw new UsageError("youtube-project add needs --client-id <id>", command);
  const sizes: Partial<Record<(typeof SIZE_FLAGS)[number]["field"], number>> = {};
  for (const f of SIZE_FLAGS) if (flags.has(f.flag)) sizes[f.field] = flags.get(f.flag) as number;
  return { name: "youtube-project add", project: projectName(name, command), clientId: clientId.trim(), sizes, json };
}

/** Reads the secret: the environment variable, else stdin unless it is a terminal. */
export async function readClientSecret(env: Record<string, string | undefined>, stdin: (() => Promise<string | null>) | undefined): Promise<string> {
  const fromEnv = env[CLIENT_SECRET_ENV]?.trim();
  if (fromEnv) return fromEnv;
  const piped = (await stdin?.())?.trim();
  if (piped) return piped;
  throw new CliError(
    `youtube-project add needs the OAuth client's secret: set ${CLIENT_SECRET_ENV}, or pipe it on stdin (it is never taken from an argument)`,
    EXIT.usage,
  );
}

/** The projects as table lines, then what to do about a project planned over its bucket. Pure, for tests. */
export function formatProjectList(projects: YouTubeProject[], width?: number): string[] {
  if (projects.length === 0) return ["no Google project yet: the environment's GOOGLE_OAUTH_CLIENT_ID is the project default once a channel is connected"];
  return formatTable(
    ["name", "client", "uploads/day", "planned/day", "today", "accounts", "oauth client id"],
    projects.map((p) => [
      p.name ?? "-",
      p.client,
      String(p.upload_calls_per_day),
      String(p.planned_uploads_per_day),
      String(p.uploads_today),
      p.active_accounts === p.accounts ? String(p.accounts) : `${p.active_accounts}/${p.accounts}`,
      p.oauth_client_id,
    ]),
    width,
  ).concat(
    projects.filter((p) => p.client === "unregistered" && p.accounts > 0).map((p) =>
      `client ${p.oauth_client_id} is not registered: its ${p.accounts} account(s) are refreshed with GOOGLE_OAUTH_CLIENT_ID; register it: mdame youtube-project add --name <name> --client-id ${p.oauth_client_id}`
    ),
  );
}

export async function youtubeProjectCommand(
  command: YouTubeProjectCommand,
  api: ApiClient,
  ctx: CommandContext,
  secret: { env: Record<string, string | undefined>; stdin?: () => Promise<string | null> },
): Promise<number> {
  if (command.name === "youtube-project list") {
    const { projects } = await api.listYouTubeProjects();
    if (command.json) printJson(ctx.out, projects);
    else printLines(ctx.out, formatProjectList(projects, ctx.out.columns || undefined));
    return EXIT.ok;
  }
  if (command.name === "youtube-project remove") {
    const removed = await api.removeYouTubeProject(command.project);
    if (command.json) printJson(ctx.out, removed);
    else printLine(ctx.out, `YouTube project ${removed.name} (${removed.oauth_client_id}) removed; its quota history stays in the ledger`);
    return EXIT.ok;
  }
  const body: RegisterYouTubeProjectBody = {
    name: command.project,
    oauth_client_id: command.clientId,
    client_secret: await readClientSecret(secret.env, secret.stdin),
    ...command.sizes,
  };
  const project = await api.registerYouTubeProject(body);
  if (command.json) printJson(ctx.out, project);
  else {
    printLine(
      ctx.out,
      `YouTube project ${project.name} registered (client ${project.oauth_client_id}): ${project.upload_calls_per_day} uploads a day, secret sealed by the API`,
    );
    printLine(ctx.out, `  connect channels through it: mdame account connect youtube --dimension <id> --project ${project.name}`);
  }
  return EXIT.ok;
}
