// node:sqlite as Deno serves it, the part test/support/sqlite-lock-holder.ts uses (Node 20's types have none).
declare module "node:sqlite" {
  export class DatabaseSync {
    constructor(path: string);
    exec(sql: string): void;
    close(): void;
  }
}
