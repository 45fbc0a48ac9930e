#!/usr/bin/env bun
/**
 * `mdame`: the operator's command line. It talks to the engine only through the `pipeline` Edge
 * Function's HTTP API, so it works against the local stack and a real Supabase project alike.
 * `mdame --help` lists the commands, the environment it reads and its exit codes.
 */
import { Buffer } from "node:buffer";
import process from "node:process";
import { main } from "./main.ts";

/** All of stdin, or null when it is a terminal: a secret is piped (`< secret.txt`), never typed onto argv. */
async function readStdin(): Promise<string | null> {
  if (process.stdin.isTTY) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

process.exitCode = await main(process.argv.slice(2), { out: process.stdout, err: process.stderr, env: process.env, stdin: readStdin });
