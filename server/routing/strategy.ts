/**
 * How a routing node with targets picks among them (docs/spec-notes.md, "The peer gateway"): a
 * load-balanced node draws one by weight, a fallback node moves on to its next target for the
 * listed statuses.
 */
import type { RoutingNode } from "./build.js";

/** Fallback moves on for the listed codes, or for anything but 2xx when none are listed. */
export function movesOn(status: number, codes: readonly number[] | undefined): boolean {
  return codes ? codes.includes(status) : status < 200 || status >= 300;
}

/** One target drawn by weight; targets of weight 0 are never drawn. */
export function pickWeighted(targets: RoutingNode[], random = Math.random): RoutingNode {
  const total = targets.reduce((sum, t) => sum + t.weight, 0);
  let point = random() * total;
  for (const target of targets) {
    if (target.weight <= 0) continue;
    point -= target.weight;
    if (point < 0) return target;
  }
  return targets.filter((t) => t.weight > 0).at(-1) as RoutingNode;
}
