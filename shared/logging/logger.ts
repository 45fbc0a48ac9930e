import pino from "pino";

/** Fields every log line carries where known (CONVENTIONS.md, "Errors and logs"). */
export interface LogContext {
  execution_id?: string;
  dimension?: string;
  stage?: string;
  step_token?: string;
  [key: string]: unknown;
}

/** Paths pino blanks out: credentials and tokens never reach a log line. */
export const REDACT_PATHS = [
  "authorization", "*.authorization", "headers.authorization", "*.headers.authorization",
  "access_token", "*.access_token", "refresh_token", "*.refresh_token",
  "client_secret", "*.client_secret", "credentials", "*.credentials",
  "api_key", "*.api_key", "password", "*.password", "secret", "*.secret",
  "service_role_key", "*.service_role_key",
];

export type Logger = pino.Logger;

/** A JSON-lines logger for one component; pass `destination` to capture lines in tests. */
export function createLogger(component: string, destination?: pino.DestinationStream, level?: string): Logger {
  const options: pino.LoggerOptions = {
    base: { component },
    level: level ?? (globalThis as { process?: { env?: Record<string, string> } }).process?.env?.LOG_LEVEL ?? "info",
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
