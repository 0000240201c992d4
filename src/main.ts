#!/usr/bin/env node
import { runProgram } from './program.js';

const status = await runProgram(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  envFile: '.env',
});
if (status !== 'running') process.exitCode = status;
