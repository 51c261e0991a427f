#!/usr/bin/env node
import { headroom } from './main.js';

process.exitCode = await headroom(process.argv.slice(2));
