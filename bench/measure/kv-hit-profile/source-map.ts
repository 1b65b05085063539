// A bundle's frames read back to the files they were written in, through the source map esbuild
// wrote for it: a profile of what runs as built, its parts still told apart by source file.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { originalPositionFor, TraceMap } from "@jridgewell/trace-mapping";
import type { SourceOf } from "./cpu-profile.ts";

/** The source of each frame of the bundle at `bundlePath` (its map at `bundlePath.map`); others as they are. */
export const bundleSources = (bundlePath: string): SourceOf =>
  mappedSources(pathToFileURL(bundlePath).href, readFileSync(`${bundlePath}.map`, "utf8"), `${bundlePath}.map`);

/**
 * The source of each frame whose script is `scriptUrl` (as the runtime names it: workerd names a
 * module by its name, `worker.js`), read through `map`, whose sources are relative to the file
 * `mapPath`: they come back as file URLs.
 */
export function mappedSources(scriptUrl: string, map: string, mapPath: string): SourceOf {
  const traced = new TraceMap(map, pathToFileURL(mapPath).href);
  return (frame) => {
    if (frame.url !== scriptUrl || frame.lineNumber === undefined) return frame.url;
    const position = { line: frame.lineNumber + 1, column: frame.columnNumber ?? 0 };
    return originalPositionFor(traced, position).source ?? frame.url;
  };
}
