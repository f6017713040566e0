/**
 * A worker thread running an OpenAI-style upstream that drips one long event: a role chunk, then
 * one chunk whose content is `bytes` long, written `readBytes` at a time a millisecond apart (as a
 * slow or hostile upstream sends it), then the finish chunk and `[DONE]`. On a thread of its own so
 * its writes do not share the gateway's event loop. Posts `{port}` once it listens.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parentPort, workerData } from "node:worker_threads";

const { bytes, readBytes } = workerData as { bytes: number; readBytes: number };

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const event = Buffer.from(chunk({ content: "a".repeat(bytes) }));

const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(chunk({ role: "assistant", content: "" }));
    let at = 0;
    const next = () => {
      if (res.destroyed) return;
      if (at >= event.length) {
        res.end(`${chunk({}, "stop")}data: [DONE]\n\n`);
        return;
      }
      res.write(event.subarray(at, at + readBytes));
      at += readBytes;
      setTimeout(next, 1);
    };
    next();
  });
});

server.listen(0, "127.0.0.1", () => parentPort?.postMessage({ port: (server.address() as AddressInfo).port }));
