#!/usr/bin/env node
import { headroom } from './main.js';

process.exitCode = await headroom(process.argv.slice(2));
// The command is over and has said everything: a connection still waiting on a server that stopped
// answering (or a workload's promise that never settles) must not keep the process alive. stdout and
// stderr are written synchronously here (files, pipes and terminals on Linux), so nothing is cut.
setTimeout(() => process.exit(), 1000).unref();
