import { describe, expect, it } from "vitest";
import { withParsedUrl } from "./request-url.ts";

/** A request whose `url` is the target as sent, as a runtime that does not parse it hands it over. */
function asSent(url: string, init?: RequestInit): Request {
  const request = new Request("http://api.test/placeholder", init);
  Object.defineProperty(request, "url", { value: url });
  return request;
}

describe("withParsedUrl", () => {
  it("gives a request whose target has dot segments or backslashes the URL a parser makes of it", async () => {
    const sent = asSent("http://api.test/v1/../v1/%2e%2e/assets\\x?a=1", {
      method: "POST",
      headers: { "if-match": '"a"' },
      body: "{}",
    });
    const parsed = withParsedUrl(sent);
    expect(parsed.url).toBe("http://api.test/assets/x?a=1");
    expect(parsed.method).toBe("POST");
    expect(parsed.headers.get("if-match")).toBe('"a"');
    expect(await parsed.text()).toBe("{}");
  });

  it("keeps a request whose URL is already as a parser writes it", () => {
    const request = new Request("http://api.test/v1/assets/x?a=1");
    expect(withParsedUrl(request)).toBe(request);
  });
});
