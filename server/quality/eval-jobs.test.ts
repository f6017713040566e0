/**
 * Evaluation runs keep the rules of the rest of the admin API: a policy of another workspace is a
 * 404 (an eval is no oracle on another workspace's guardrails), checks the organization's plan does
 * not include are refused as on inference, and nothing runs while guardrails are turned off.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OPERATOR } from "../management/index.js";
import { ManagementError } from "../store/errors.js";
import { type TestPlane, tenant, testPlane } from "../../test/support/management.js";
import { EvalJobs } from "./eval-jobs.js";

let plane: TestPlane;
let jobs: EvalJobs;

beforeEach(async () => {
  plane = await testPlane();
  jobs = new EvalJobs(plane.management.context, () => plane.engine);
});

afterEach(async () => {
  await jobs.drain();
  await plane.close();
});

const rows = [{ text: "a secret word", label: 1 }];
const sees = (id: string, plugin = "test.sees") => ({
  id,
  checks: [{ id: plugin, parameters: plugin === "test.sees" ? { word: "secret" } : {} }],
});

/** The code a start call is refused with. */
async function refusal(start: Promise<unknown>): Promise<string> {
  const error = await start.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ManagementError);
  return (error as ManagementError).code;
}

describe("evaluation runs", () => {
  it("answers 404 for a policy of another workspace, or one scoped away from the caller, as the policy routes do", async () => {
    const t = await tenant(plane.management);
    const ofB = await plane.management.policies.create(OPERATOR, t.org.id, {
      workspace_id: t.b.id,
      input_guardrails: [sees("b-words")],
    });
    const scopedToB = await plane.management.policies.create(OPERATOR, t.org.id, {
      scope: { workspaces: [t.b.id] },
      input_guardrails: [sees("org-words")],
    });
    const ofA = await plane.management.policies.create(OPERATOR, t.org.id, {
      workspace_id: t.a.id,
      input_guardrails: [sees("a-words")],
    });
    for (const policy of [ofB, scopedToB]) {
      expect(await refusal(jobs.start(t.actors.adminA, { workspace_id: t.a.id, policy_id: policy.id, rows }))).toBe("not_found");
    }
    // The organization's admin reaches every policy, but a workspace's policy runs in its own workspace.
    expect(await refusal(jobs.start(t.actors.orgAdmin, { workspace_id: t.a.id, policy_id: ofB.id, rows }))).toBe("not_found");
    const own = await jobs.start(t.actors.adminA, { workspace_id: t.a.id, policy_id: ofA.id, rows });
    expect(own).toMatchObject({ status: "running", workspace_id: t.a.id });
    const scoped = await jobs.start(t.actors.orgAdmin, { workspace_id: t.a.id, policy_id: scopedToB.id, rows });
    expect(scoped.status).toBe("running");
  });

  it("refuses checks the plan does not include, in the guardrail and the one compared, as inference does", async () => {
    const t = await tenant(plane.management, "developer");
    expect(await refusal(jobs.start(t.actors.adminA, { workspace_id: t.a.id, guardrail: sees("pro", "pro.always"), rows }))).toBe(
      "plan_forbids_check",
    );
    expect(
      await refusal(
        jobs.start(t.actors.adminA, {
          workspace_id: t.a.id,
          guardrail: sees("words"),
          compare: { guardrail: sees("pro", "pro.always") },
          rows,
        }),
      ),
    ).toBe("plan_forbids_check");
    // A policy saved before the plan was lowered is gated when it runs.
    const t2 = await tenant(plane.management, "enterprise");
    const policy = await plane.management.policies.create(OPERATOR, t2.org.id, {
      workspace_id: t2.a.id,
      input_guardrails: [sees("pro", "pro.always")],
    });
    await plane.management.organizations.update(OPERATOR, t2.org.id, { plan: "developer" });
    expect(await refusal(jobs.start(t2.actors.adminA, { workspace_id: t2.a.id, policy_id: policy.id, rows }))).toBe(
      "plan_forbids_check",
    );
    expect((await plane.store.evalRuns.list({ organizationId: t.org.id })).length).toBe(0);
  });

  it("runs nothing while the organization has guardrails turned off", async () => {
    const t = await tenant(plane.management, "enterprise", false);
    expect(await refusal(jobs.start(t.actors.adminA, { workspace_id: t.a.id, guardrail: sees("words"), rows }))).toBe(
      "guardrails_disabled",
    );
    expect(await plane.store.evalRuns.list({ organizationId: t.org.id })).toEqual([]);
  });
});
