/**
 * What the faults visibly did, read from the stack's own records: restarts the supervisor counted
 * per component, and the emulator's request log (one JSON line per answer, with its status and how
 * long it took) since the soak began.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { logFile } from "../../stack/paths.ts";
import { readStackStatus } from "../../stack/stack-control.ts";

/** The services the soak arms faults on. */
const FAULTED = new Set(["gemini", "edge-tts", "youtube"]);

export interface Effects {
  /** Restarts per component since the stack started (kill -9, Postgres restarts). */
  restarts: Record<string, number>;
  /** Answers per `<service> <status>` that were not 2xx/101, plus `<service> slow` (1 s or more) and `edge-tts cut`. */
  emulator: Record<string, number>;
}

export function emulatorLogOffset(): number {
  const file = logFile("emulators");
  return existsSync(file) ? statSync(file).size : 0;
}

export function restartsSoFar(): Record<string, number> {
  const status = readStackStatus();
  return Object.fromEntries(Object.entries(status?.components ?? {}).map(([name, c]) => [name, c?.restarts ?? 0]));
}

export function observedEffects(emulatorOffset: number, restarts: Record<string, number>): Effects {
  const emulator: Record<string, number> = {};
  const bump = (key: string) => (emulator[key] = (emulator[key] ?? 0) + 1);
  const file = logFile("emulators");
  const text = existsSync(file) ? readFileSync(file).subarray(emulatorOffset).toString("utf8") : "";
  for (const line of text.split("\n")) {
    if (!line.startsWith("{")) continue;
    let entry: { service?: string; status?: number | string; ms?: number; event?: string; path?: string };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (!entry.service || !FAULTED.has(entry.service) || entry.path?.startsWith("/_emulator")) continue;
    if (entry.event === "fault") bump(`${entry.service} cut`);
    if (entry.status !== undefined && !(typeof entry.status === "number" && (entry.status < 300 || entry.status === 308))) {
      bump(`${entry.service} ${entry.status}`);
    }
    if ((entry.ms ?? 0) >= 1000) bump(`${entry.service} slow`);
  }
  return { restarts, emulator };
}
