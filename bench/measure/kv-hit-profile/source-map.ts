// A bundle's frames read back to the files they were written in, through the source map esbuild
// wrote beside it: a profile of what runs as built, its parts still told apart by source file.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { originalPositionFor, TraceMap } from "@jridgewell/trace-mapping";
import type { SourceOf } from "./cpu-profile.ts";

/** The source of each frame of the bundle at `bundlePath` (its map at `bundlePath.map`); others as they are. */
export function bundleSources(bundlePath: string): SourceOf {
  const bundleUrl = pathToFileURL(bundlePath).href;
  // Its sources are relative to the map: resolved against its URL, they are file URLs too.
  const map = new TraceMap(readFileSync(`${bundlePath}.map`, "utf8"), `${bundleUrl}.map`);
  return (frame) => {
    if (frame.url !== bundleUrl || frame.lineNumber === undefined) return frame.url;
    const position = { line: frame.lineNumber + 1, column: frame.columnNumber ?? 0 };
    return originalPositionFor(map, position).source ?? frame.url;
  };
}
