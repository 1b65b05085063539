// The part of autocannon's API the cross-check uses (the package ships no types).
declare module "autocannon" {
  interface AutocannonRequest {
    method: string;
    path: string;
    headers: Record<string, string>;
    body?: string;
  }
  interface AutocannonOptions {
    url: string;
    connections: number;
    amount: number;
    requests: AutocannonRequest[];
  }
  interface AutocannonResult {
    errors: number;
    non2xx: number;
    timeouts: number;
  }
  interface Instance extends PromiseLike<AutocannonResult> {
    on(event: "response", listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  }
  function autocannon(options: AutocannonOptions): Instance;
  export default autocannon;
}
