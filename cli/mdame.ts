#!/usr/bin/env bun
/**
 * `mdame`: the operator's command line. It talks to the engine only through the `pipeline` Edge
 * Function's HTTP API, so it works against the local stack and a real Supabase project alike.
 * `mdame --help` lists the commands, the environment it reads and its exit codes.
 */
import process from "node:process";
import { main } from "./main.ts";

process.exitCode = await main(process.argv.slice(2), { out: process.stdout, err: process.stderr, env: process.env });
