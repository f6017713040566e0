/**
 * Finds which of many literal hints a line contains in one pass (Aho–Corasick), so that a line
 * runs only the signal patterns whose hints it holds. Matching is on lower-cased text; callers
 * re-check case where it matters. Plain string scanning: linear in the line.
 */

interface Node {
  next: Map<number, number>;
  fail: number;
  /** Ids of the hints that end here, including those reached through fail links. */
  out: number[];
}

/** A set of hints, compiled for repeated searches. */
export class HintIndex {
  readonly #nodes: Node[] = [{ next: new Map(), fail: 0, out: [] }];

  /** Builds the index of `hints` (lower case); a hint's id is its position in the list. */
  constructor(hints: readonly string[]) {
    hints.forEach((hint, id) => {
      let state = 0;
      for (let i = 0; i < hint.length; i++) {
        const c = hint.charCodeAt(i);
        let to = this.#nodes[state]!.next.get(c);
        if (to === undefined) {
          to = this.#nodes.length;
          this.#nodes.push({ next: new Map(), fail: 0, out: [] });
          this.#nodes[state]!.next.set(c, to);
        }
        state = to;
      }
      this.#nodes[state]!.out.push(id);
    });
    const queue: number[] = [];
    for (const to of this.#nodes[0]!.next.values()) queue.push(to);
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      for (const [c, to] of this.#nodes[state]!.next) {
        let fail = this.#nodes[state]!.fail;
        while (fail !== 0 && !this.#nodes[fail]!.next.has(c)) fail = this.#nodes[fail]!.fail;
        const target = this.#nodes[fail]!.next.get(c);
        this.#nodes[to]!.fail = target !== undefined && target !== to ? target : 0;
        this.#nodes[to]!.out.push(...this.#nodes[this.#nodes[to]!.fail]!.out);
        queue.push(to);
      }
    }
  }

  /** Marks in `found` (indexed by hint id) every hint that occurs in `text`. */
  search(text: string, found: Uint8Array): void {
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      let node = this.#nodes[state]!;
      while (state !== 0 && !node.next.has(c)) {
        state = node.fail;
        node = this.#nodes[state]!;
      }
      state = node.next.get(c) ?? 0;
      for (const id of this.#nodes[state]!.out) found[id] = 1;
    }
  }
}
