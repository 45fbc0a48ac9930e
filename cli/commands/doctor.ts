/**
 * `mdame doctor`: checks the whole configuration (environment, secrets, database, functions, every
 * provider) and says, line by line, what is wrong and how to fix it. Unlike the other commands it
 * reads every variable the components read, not only FUNCTIONS_URL and SERVICE_ROLE_KEY.
 */
import { formatReport, runDoctor } from "../doctor/run-doctor.ts";
import { EXIT, type ExitCode } from "../errors.ts";
import { printJson, println, type Screen } from "../output.ts";

interface DoctorCommand {
  name: "doctor";
  json: boolean;
  /** Per-check time limit in seconds. */
  timeout: number;
}

interface DoctorIo {
  out: Screen;
  env: Record<string, string | undefined>;
  /** The local stack's environment file, read for each variable the environment lacks. */
  stackEnvFile: string;
}

/** Exit 0 when no check failed (warnings allowed), 1 otherwise. */
export async function doctorCommand(command: DoctorCommand, io: DoctorIo): Promise<ExitCode> {
  const report = await runDoctor({ env: io.env, stackEnvFile: io.stackEnvFile, timeoutMs: command.timeout * 1000 });
  if (command.json) printJson(io.out, report);
  else println(io.out, formatReport(report).replace(/\n$/, ""));
  return report.ok ? EXIT.ok : EXIT.failure;
}
