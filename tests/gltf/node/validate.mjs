// Validates the glTF/glb files named on the command line with the Khronos glTF-Validator and
// prints one JSON report per line: {"file", "errors", "warnings", "infos", "messages"}.
import fs from "node:fs";
import path from "node:path";
import validator from "gltf-validator";

for (const file of process.argv.slice(2)) {
  const data = new Uint8Array(fs.readFileSync(file));
  const report = await validator.validateBytes(data, {
    uri: path.basename(file),
    maxIssues: 200,
    externalResourceFunction: (uri) =>
      Promise.resolve(new Uint8Array(fs.readFileSync(path.join(path.dirname(file), decodeURIComponent(uri))))),
  });
  const issues = report.issues;
  console.log(JSON.stringify({
    file,
    errors: issues.numErrors,
    warnings: issues.numWarnings,
    infos: issues.numInfos,
    messages: issues.messages.map((m) => `${m.severity} ${m.code} ${m.pointer ?? ""} ${m.message}`),
  }));
}
