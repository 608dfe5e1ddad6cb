#!/usr/bin/env node
// The csr command runs the compiled CLI; `npm ci` builds it (prepare script).
import '../dist/src/cli/csr.js';
