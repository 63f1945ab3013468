// The JavaScript peers' read path, timed on one archive: Node's zlib Brotli + BSON.deserialize
// (what JS tools for Resonite files use).  Usage: node peer.mjs FILE [REPS]
// Prints one JSON line: best decompress and deserialize wall times (s), the best process CPU
// time of the two together (user + system, all threads), and the peak RSS (bytes).
import { readFileSync } from "node:fs";
import { brotliDecompressSync } from "node:zlib";
import { BSON } from "bson";

const bsonVersion = JSON.parse(
  readFileSync(new URL("./node_modules/bson/package.json", import.meta.url), "utf8"),
).version;
const [file, repsArg] = process.argv.slice(2);
const reps = Number(repsArg ?? 1);
const baseline = process.resourceUsage().maxRSS * 1024;
const data = readFileSync(file);
if (data.subarray(0, 4).toString("latin1") !== "FrDT" || data[8] !== 3) {
  throw new Error(`${file}: not an FrDT Brotli archive`);
}
const payload = data.subarray(9);
let cpu = Infinity;
let decompress = Infinity;
let deserialize = Infinity;
let slots = 0;
for (let i = 0; i < reps; i++) {
  const c0 = process.cpuUsage();
  let t0 = process.hrtime.bigint();
  const bson = brotliDecompressSync(payload);
  let t1 = process.hrtime.bigint();
  decompress = Math.min(decompress, Number(t1 - t0) / 1e9);
  t0 = process.hrtime.bigint();
  const doc = BSON.deserialize(bson);
  t1 = process.hrtime.bigint();
  deserialize = Math.min(deserialize, Number(t1 - t0) / 1e9);
  const used = process.cpuUsage(c0);
  cpu = Math.min(cpu, (used.user + used.system) / 1e6);
  slots = 0;
  const stack = [doc.Object];
  while (stack.length) {
    const slot = stack.pop();
    slots += 1;
    for (const child of slot.Children) stack.push(child);
  }
}
const peak = process.resourceUsage().maxRSS * 1024;
console.log(JSON.stringify({
  decompress, deserialize, total: decompress + deserialize, cpu, slots,
  peak_rss: peak - baseline, node: process.version, bson: bsonVersion,
}));
