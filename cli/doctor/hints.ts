/** Where each variable's value comes from: the "how to fix" of a missing or bad variable. */
const SERVICE_ROLE = "Supabase dashboard: Project Settings > API Keys > service_role (secret); the local stack generates one in .local/secrets.json";
const OAUTH_CLIENT =
  'Google Cloud console: APIs & Services > Credentials > Create credentials > OAuth client ID, application type "Desktop app" (enable YouTube Data API v3 in the same project)';

const VARIABLE_HINTS: Record<string, string> = {
  ENV: "set ENV=dev (local stack) or ENV=prod; it must equal the environment the database records (mdame.settings key env)",
  DB_URL: "Supabase dashboard: Connect > connection string (session pooler URI); the local stack: `npm run stack` writes it to .local/stack.env",
  SUPABASE_DB_URL: "the same connection string as DB_URL (Supabase injects it into Edge Functions)",
  FUNCTIONS_URL: "https://<project-ref>.supabase.co/functions/v1, or set SUPABASE_URL and it is derived",
  SERVICE_ROLE_KEY: SERVICE_ROLE,
  SUPABASE_SERVICE_ROLE_KEY: SERVICE_ROLE,
  WEBHOOK_SECRET: 'generate one: echo "whsec_$(openssl rand -base64 32)"; give the same value to the edge functions and both workers',
  CREDENTIALS_KEY:
    "generate one: openssl rand -base64 32; keep it, accounts sealed with a key cannot be read with another (changing it: docs/guides/rotation.md)",
  CREDENTIALS_KEYS_PREVIOUS: "during a rotation only: the keys CREDENTIALS_KEY replaced, comma-separated (docs/guides/rotation.md)",
  WEBHOOK_SECRETS_PREVIOUS: "during a rotation only: the secrets WEBHOOK_SECRET replaced, comma-separated (docs/guides/rotation.md)",
  STORAGE_BACKEND: "supabase (Supabase Storage, shared by every machine) or local (a directory on this machine)",
  STORAGE_LOCAL_DIR: "a directory the engine may write to (STORAGE_BACKEND=local)",
  SUPABASE_URL: "Supabase dashboard: Project Settings > Data API > Project URL (https://<project-ref>.supabase.co)",
  STORAGE_BUCKET: "a bucket name of 2-63 lower-case letters, digits, '.', '_' or '-'; unset means mdame-<ENV>",
  GEMINI_API_KEY: "create an API key in Google AI Studio: https://aistudio.google.com/apikey",
  GEMINI_BASE_URL: "leave it unset in production (Google's endpoint); the emulator's URL on the local stack",
  GEMINI_MODEL: "a Gemini model id, e.g. gemini-2.5-flash (https://ai.google.dev/gemini-api/docs/models)",
  EDGE_TTS_WSS_URL: "leave it unset in production (Microsoft's endpoint); the emulator's ws:// URL on the local stack",
  YOUTUBE_UPLOAD_BASE_URL: "leave it unset in production (https://www.googleapis.com)",
  GOOGLE_OAUTH_TOKEN_URL: "leave it unset in production (https://oauth2.googleapis.com/token)",
  GOOGLE_OAUTH_CLIENT_ID: OAUTH_CLIENT,
  GOOGLE_OAUTH_CLIENT_SECRET: OAUTH_CLIENT,
  TRENDS_BASE_URL: "leave it unset in production (https://trends.google.com)",
  FFMPEG_PATH: "the path of an ffmpeg binary, or unset to use ffmpeg on PATH",
  WORKER_ID: "a label the worker's id starts with (<label>-<host>-<pid>-<random>), or unset for the component's name",
  LOG_LEVEL: "one of fatal, error, warn, info, debug, trace",
  OPENAI_COMPAT_BASE_URL: "the API root before /chat/completions (e.g. https://openrouter.ai/api/v1, or an Ollama or vLLM server's /v1), or unset",
  OPENAI_COMPAT_API_KEY: "the key of that API (its dashboard's API keys page); servers without keys accept any",
  PEXELS_API_KEY: "a key from https://www.pexels.com/api/ (free), or unset to leave the Pexels backend out",
  PEXELS_BASE_URL: "leave it unset in production (https://api.pexels.com)",
  TELEGRAM_BOT_TOKEN: "talk to @BotFather in Telegram: /newbot gives the token; or unset to record alerts without sending them",
  TELEGRAM_API_BASE_URL: "leave it unset in production (https://api.telegram.org); the local stack points it at the emulator",
  TELEGRAM_CHAT_ID: "add the bot to the alerts group, send it a message, and read chat.id from https://api.telegram.org/bot<token>/getUpdates",
};

export function hintFor(name: string): string {
  return VARIABLE_HINTS[name] ?? `set ${name}`;
}
