// HTTP/1.1 over a bare socket, for requests no fetch client would send: malformed ones, or a field
// on several lines.
import { connect } from "node:net";

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  text: string;
}

/** Sends bytes no fetch client would send, and reads the answer until the server closes. */
export function rawRequest(baseUrl: string, request: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request, "latin1"));
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      text += chunk;
      // A complete answer with a length ends here: some servers keep the connection a while.
      const answer = parseAnswer(text);
      if (answer && Number(answer.headers["content-length"]) === Buffer.byteLength(answer.body, "latin1")) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(parseAnswer(text) ?? { status: Number.NaN, headers: {}, body: "", text }));
  });
}

function parseAnswer(text: string): RawAnswer | undefined {
  if (!text.includes("\r\n\r\n")) return undefined;
  const [head = "", body = ""] = text.split(/\r\n\r\n(.*)/s);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(":");
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  return { status: Number(statusLine.split(" ")[1]), headers, body, text };
}
