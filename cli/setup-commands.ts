/** The commands that set a channel up: `mdame dimension ...` and `mdame account ...` (parsed by args.ts). */
import { type CommandSpec, type FlagSpec, JSON_FLAG, type Positional } from "./command-spec.ts";

const DIMENSION_ID = { name: "id", required: true, description: "the dimension's id (see dimension list)" };
const ACCOUNT_ID = { name: "id", required: true, description: "the account's id (a uuid, see account list)" };

/** `<thing> pause` and `<thing> resume` of one thing by its id: the API's pause and resume routes of it. */
function pauseAndResume(thing: string, id: Positional, summaries: { pause: string; resume: string }): CommandSpec[] {
  return (["pause", "resume"] as const).map((action) => ({ words: [thing, action], positionals: [id], flags: [JSON_FLAG], summary: summaries[action] }));
}

/** `dimension set` flags that change one field each: flag name -> configuration field. */
export const DIMENSION_FIELD_FLAGS: { flag: string; field: string; kind: "string" | "integer"; value: string; description: string }[] = [
  { flag: "display-name", field: "display_name", kind: "string", value: "<text>", description: "the name shown to people" },
  { flag: "language", field: "language", kind: "string", value: "<BCP-47 tag>", description: "the language its videos speak: en, id, ru-RU, ja-JP..." },
  { flag: "voice", field: "tts_voice", kind: "string", value: "<voice>", description: "the TTS voice, e.g. en-US-AriaNeural" },
  { flag: "rate", field: "tts_rate", kind: "string", value: "<+n%|-n%>", description: "speaking rate, e.g. +0% or -10%" },
  { flag: "trend-geo", field: "trend_geo", kind: "string", value: "<CC>", description: "trend region, a two-letter country code" },
  { flag: "daily-limit", field: "daily_limit", kind: "integer", value: "<n>", description: "at most this many new videos a day (0-50)" },
  { flag: "narration-min-words", field: "narration_min_words", kind: "integer", value: "<n>", description: "shortest narration, in words (60-180)" },
  { flag: "narration-max-words", field: "narration_max_words", kind: "integer", value: "<n>", description: "longest narration, in words (60-180)" },
];

/**
 * `dimension set` flags that change one publishing setting each: flag name -> `publishing` field.
 * `none` clears a setting that may be unset; the others keep their stored value.
 */
export const DIMENSION_PUBLISHING_FLAGS: { flag: string; field: string; value: string; description: string }[] = [
  { flag: "category", field: "category_id", value: "<id>", description: "YouTube category id, e.g. 27 (Education); `mdame doctor` checks it is assignable" },
  { flag: "privacy", field: "privacy_status", value: "<public|unlisted|private>", description: "what the uploaded video is once out" },
  { flag: "time-zone", field: "time_zone", value: "<IANA zone>", description: "the zone of --publish-time and --run-time, e.g. Asia/Jakarta" },
  { flag: "publish-time", field: "publish_time", value: "<HH:MM|none>", description: "when public videos go public, local time (none: when uploaded)" },
  {
    flag: "run-time",
    field: "run_time",
    value: "<HH:MM|none>",
    description: "when the day's production starts, local time (none: 4 h before --publish-time, else 06:00 UTC)",
  },
  { flag: "made-for-kids", field: "made_for_kids", value: "<true|false>", description: "declare the videos made for kids" },
  { flag: "synthetic-media", field: "contains_synthetic_media", value: "<true|false>", description: "declare altered or synthetic content (default true)" },
  {
    flag: "audio-language",
    field: "default_audio_language",
    value: "<BCP-47 tag|none>",
    description: "the videos' audio language (none: the dimension's language)",
  },
];

/** A publishing flag's text as the contract takes it: `none` is null, `true`/`false` booleans; the rest is checked there. */
export function publishingFlagValue(text: string): string | boolean | null {
  if (text === "none") return null;
  if (text === "true" || text === "false") return text === "true";
  return text;
}

export const DIMENSION_SPECS: CommandSpec[] = [
  {
    words: ["dimension", "list"],
    positionals: [],
    flags: [JSON_FLAG],
    summary: "list the dimensions: language, voice, daily limit, paused or not, accounts",
  },
  {
    words: ["dimension", "show"],
    positionals: [DIMENSION_ID],
    flags: [JSON_FLAG],
    summary: "show a dimension's configuration: every setting, sections indented",
    details: "With --json, the whole dimension; its configuration fields can be saved to a file for `dimension set --file`.",
  },
  {
    words: ["dimension", "add"],
    positionals: [],
    flags: [{ name: "file", kind: "string", value: "<config>", description: "the configuration: a JSON file, or YAML (.yaml/.yml)" }, JSON_FLAG],
    summary: "add a dimension from a configuration file",
    details: "Required: id, display_name, language, tts_voice, trend_geo, style {palette, motion}; every other field has a default " +
      "(docs/guides/channel-setup.md lists them; `mdame dimension schema` prints the JSON Schema editors check files with). Every bad field is " +
      "named, and nothing is stored unless all are right. An id already taken exits 5.",
  },
  {
    words: ["dimension", "schema"],
    positionals: [],
    flags: [{ name: "out", kind: "string", value: "<file>", description: "write it to this file instead of printing it" }],
    summary: "print the JSON Schema of a dimension configuration file, for editors",
    details: "Generated from the contract the CLI and the API check (JSON Schema draft 2020-12). docs/dimension.schema.json is a copy; " +
      "docs/guides/channel-setup.md shows how to point an editor at it.",
  },
  {
    words: ["dimension", "set"],
    positionals: [DIMENSION_ID],
    flags: [
      { name: "file", kind: "string", value: "<config>", description: "fields to change, from a JSON or YAML file (no id)" },
      ...DIMENSION_FIELD_FLAGS.map((f): FlagSpec => ({ name: f.flag, kind: f.kind, value: f.value, description: f.description, min: 0, max: 100_000 })),
      ...DIMENSION_PUBLISHING_FLAGS.map((f): FlagSpec => ({ name: f.flag, kind: "string", value: f.value, description: f.description })),
      JSON_FLAG,
    ],
    summary: "change some fields of a dimension's configuration",
    details: "Flags win over the file. The resulting configuration is checked whole; nothing changes unless it is valid.",
  },
  ...pauseAndResume("dimension", DIMENSION_ID, {
    pause: "stop new runs from picking the dimension (work under way finishes)",
    resume: "let new runs pick a paused dimension again",
  }),
];

export const ACCOUNT_SPECS: CommandSpec[] = [
  {
    words: ["account", "list"],
    positionals: [],
    flags: [{ name: "dimension", kind: "string", value: "<id>", description: "only this dimension's accounts" }, JSON_FLAG],
    summary: "list publishing accounts, their Google project, and whether their credentials are stored (never the credentials)",
  },
  {
    words: ["account", "connect"],
    positionals: [{ name: "platform", required: true, description: "where to publish: youtube, tiktok, instagram or facebook" }],
    flags: [
      { name: "dimension", kind: "string", value: "<id>", description: "the dimension whose videos the account publishes (required)" },
      {
        name: "channel",
        kind: "string",
        value: "<@handle>",
        description: "youtube: the channel's handle, instead of asking YouTube which channel the account owns; " +
          "tiktok (required): the account's handle, which mdame does not read from TikTok",
      },
      {
        name: "project",
        kind: "string",
        value: "<name>",
        description:
          "youtube: the Google project (see youtube-project list) whose OAuth client signs in, and whose quota the channel spends (default: the environment's GOOGLE_OAUTH_CLIENT_ID)",
      },
      {
        name: "page",
        kind: "string",
        value: "<name>",
        description: "instagram, facebook: the Facebook Page (its name or id; for instagram also the linked account's @username) " +
          "when the signed-in user manages several",
      },
      {
        name: "login-hint",
        kind: "string",
        value: "<user>",
        description:
          "youtube: the Google account to pre-select on the consent screen; tiktok, instagram, facebook: ignored by the platform (the emulator signs in as that user)",
      },
      { name: "timeout", kind: "integer", value: "<seconds>", description: "how long to wait for the sign-in (default 300)", min: 5, max: 3600 },
      { name: "no-browser", kind: "boolean", description: "only print the consent address; do not open a browser" },
      JSON_FLAG,
    ],
    summary: "connect a YouTube channel, a TikTok account, an Instagram account or a Facebook Page to a dimension through the platform's consent screen",
    details: "Prints a consent address (and opens it in a browser when there is one), waits for the redirect to a loopback " +
      "address on this machine, and hands the refresh token to the API, which seals it with CREDENTIALS_KEY. Connecting the " +
      "same channel again replaces its credentials and clears needs_reconnect. YouTube needs GOOGLE_OAUTH_CLIENT_ID and " +
      "GOOGLE_OAUTH_CLIENT_SECRET (a Desktop app client); GOOGLE_OAUTH_AUTH_URL, GOOGLE_OAUTH_TOKEN_URL and " +
      "YOUTUBE_API_BASE_URL default to Google's; with --project <name>, the registered project's client signs in instead " +
      "(an unknown name is refused before any consent). TikTok needs TIKTOK_CLIENT_KEY and TIKTOK_CLIENT_SECRET (a Login Kit app " +
      "with Desktop enabled and the scopes user.info.basic, video.publish, video.upload, video.list); TIKTOK_AUTH_BASE_URL and " +
      "TIKTOK_API_BASE_URL default to TikTok's. TikTok's handle is not read from TikTok (its user info gives the username " +
      "only with user.info.profile): give it with --channel @handle; the account records the grant's open_id as its channel id. " +
      "Instagram and Facebook sign in with Facebook Login for Business: META_APP_ID and META_APP_SECRET (a Meta app; " +
      "META_AUTH_BASE_URL, META_GRAPH_BASE_URL and META_GRAPH_VERSION default to Meta's), the permissions instagram_basic, " +
      "instagram_content_publish, instagram_manage_insights, pages_show_list, pages_read_engagement, pages_manage_posts and " +
      "read_insights; the long-lived user token is handed to the API, the account records the Instagram account's id or the " +
      "Page id and its handle is read from Meta (@username; the Page's name, spaces as dashes).",
  },
  ...pauseAndResume("account", ACCOUNT_ID, { pause: "stop publishing to an account", resume: "publish to a paused account again" }),
  {
    words: ["account", "remove"],
    positionals: [ACCOUNT_ID],
    flags: [JSON_FLAG],
    summary: "remove an account; one that has published is kept, paused and without credentials, as the record of its videos",
  },
];
