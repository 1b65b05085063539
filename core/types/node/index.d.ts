// What core/tsconfig.json resolves a library's `/// <reference types="node" />` to (csv-parse's
// declarations carry one): nothing, so that core is checked without a runtime's globals.
export {};
