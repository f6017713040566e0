import { describe, expect, it } from "vitest";
import { prepareCheck, runCheck } from "../../../test/support/check-harness.js";
import allowedRequestTypes from "./allowedRequestTypes.js";

const chat = { requestType: "chatComplete" as const, request: { messages: [] } };
const streamedChat = { requestType: "chatComplete" as const, request: { messages: [], stream: true } };
const embed = { requestType: "embed" as const, request: { input: "x" } };

describe("allowedRequestTypes", () => {
  it("allows everything when no list is given anywhere", async () => {
    const outcome = await runCheck(allowedRequestTypes, {}, embed);
    expect(outcome.verdict).toBe(true);
    expect(outcome.data).toMatchObject({ mode: "unrestricted", source: "default", allowedTypes: ["all"] });
  });

  it("allow-list: arrays or comma-separated strings", async () => {
    const array = await runCheck(allowedRequestTypes, { allowedTypes: ["chatComplete", "messages"] }, chat);
    expect(array.verdict).toBe(true);
    expect(array.data).toMatchObject({ mode: "allowlist", source: "parameters", currentRequestType: "chatComplete" });
    const comma = await runCheck(allowedRequestTypes, { allowedTypes: "chatComplete, messages" }, embed);
    expect(comma.verdict).toBe(false);
    expect(comma.data?.explanation).toContain("not in the allowed types: chatComplete, messages");
  });

  it("block-list", async () => {
    const blocked = await runCheck(allowedRequestTypes, { blockedTypes: "embed" }, embed);
    expect(blocked.verdict).toBe(false);
    expect(blocked.data).toMatchObject({ mode: "blocklist", source: "parameters" });
    expect((await runCheck(allowedRequestTypes, { blockedTypes: ["embed"] }, chat)).verdict).toBe(true);
  });

  it("combined: blocked wins, then the type must be allowed", async () => {
    const parameters = { allowedTypes: ["chatComplete", "complete"], blockedTypes: ["stream-chatComplete"] };
    expect((await runCheck(allowedRequestTypes, parameters, chat)).verdict).toBe(true);
    const streamed = await runCheck(allowedRequestTypes, parameters, streamedChat);
    expect(streamed.verdict).toBe(false);
    expect(streamed.data).toMatchObject({ mode: "combined", currentRequestType: "stream-chatComplete" });
    expect((await runCheck(allowedRequestTypes, parameters, embed)).verdict).toBe(false);
  });

  it("a plain name covers the streaming variant; a stream- name only the streaming one", async () => {
    expect((await runCheck(allowedRequestTypes, { allowedTypes: ["chatComplete"] }, streamedChat)).verdict).toBe(true);
    expect((await runCheck(allowedRequestTypes, { allowedTypes: ["stream-chatComplete"] }, streamedChat)).verdict).toBe(true);
    expect((await runCheck(allowedRequestTypes, { allowedTypes: ["stream-chatComplete"] }, chat)).verdict).toBe(false);
  });

  it("falls back to the metadata lists and says so", async () => {
    const allowed = await runCheck(
      allowedRequestTypes,
      {},
      { ...embed, metadata: { supported_endpoints: "chatComplete,messages" } },
    );
    expect(allowed.verdict).toBe(false);
    expect(allowed.data).toMatchObject({ mode: "allowlist", source: "metadata" });
    const blocked = await runCheck(
      allowedRequestTypes,
      { allowedTypes: ["chatComplete", "messages"] },
      {
        ...embed,
        metadata: { blocked_endpoints: "embed" },
      },
    );
    expect(blocked.verdict).toBe(false);
    expect(blocked.data).toMatchObject({ mode: "combined", source: "metadata" });
    const byParameters = await runCheck(
      allowedRequestTypes,
      { allowedTypes: ["embed"] },
      {
        ...embed,
        metadata: { blocked_endpoints: "chatComplete" },
      },
    );
    expect(byParameters.verdict).toBe(true);
    expect(byParameters.data?.source).toBe("parameters");
  });

  it("accepts endpoint names a future route may use", async () => {
    const outcome = await runCheck(allowedRequestTypes, { blockedTypes: ["imageGenerate"] }, chat);
    expect(outcome.verdict).toBe(true);
  });

  it("a type in both lists is a config error, or a check error when it comes from metadata", async () => {
    expect(() => prepareCheck(allowedRequestTypes, { allowedTypes: ["embed", "chatComplete"], blockedTypes: "embed" })).toThrow(
      /blockedTypes: embed appear in both/,
    );
    await expect(
      runCheck(
        allowedRequestTypes,
        {},
        { ...chat, metadata: { supported_endpoints: "chatComplete", blocked_endpoints: "chatComplete" } },
      ),
    ).rejects.toThrow(/appear both as allowed and as blocked/);
  });

  it("is input-side only and rejects malformed names", () => {
    expect(() => prepareCheck(allowedRequestTypes, {}, "output")).toThrow(/output side/);
    expect(() => prepareCheck(allowedRequestTypes, { allowedTypes: ["chat complete"] })).toThrow();
  });
});
