/**
 * The pipeline's stages as values (docs/architecture.md, "One request"): each has a name and a
 * function from what the stage before it produced to what it produces, and a list of them is
 * walked in order. A list is composed into one function when it is made, once per process, so a
 * walk allocates nothing of its own: a stage that answers at once hands its product straight to
 * the next, and one that answers with a promise has the rest of the list chained on it.
 */

/** One stage: its name, and what it makes of what the stage before it produced. */
export interface Stage<In, Out> {
  readonly name: string;
  readonly run: (input: In) => Out | Promise<Out>;
}

type AnyStage = Stage<never, unknown>;
type Walk = (input: unknown) => unknown;

/** The walk from the first of `stages` to the end: each stage's product handed on, a promise's once it settles. */
function compose(stages: readonly AnyStage[]): Walk {
  let rest: Walk = (value) => value;
  for (let index = stages.length - 1; index >= 0; index--) {
    const run = (stages[index] as AnyStage).run as Walk;
    const next = rest;
    rest =
      index === stages.length - 1
        ? run
        : (value) => {
            const produced = run(value);
            return produced instanceof Promise ? produced.then(next) : next(produced);
          };
  }
  return rest;
}

/** Stages in order, each taking what the one before it returned. */
export class StageList<In, Out> {
  readonly #walk: Walk;

  private constructor(private readonly stages: readonly AnyStage[]) {
    this.#walk = compose(stages);
  }

  /** The empty list, which hands back what it is given. */
  static of<In>(): StageList<In, In> {
    return new StageList<In, In>([]);
  }

  /** This list with `stage` after its last. */
  then<Next>(stage: Stage<Out, Next>): StageList<In, Next> {
    return new StageList<In, Next>([...this.stages, stage as AnyStage]);
  }

  /** The stages' names, in the order they run. */
  get names(): readonly string[] {
    return this.stages.map((stage) => stage.name);
  }

  /**
   * Walks the stages from `input`; what the last returns is the list's product. It is handed back
   * as it came when every stage answered at once, and as a promise once one answered with one. A
   * stage that throws stops the walk: at once as a throw, or later as the promise's rejection.
   */
  walk(input: In): Out | Promise<Out> {
    return this.#walk(input) as Out | Promise<Out>;
  }

  /** `walk` with its product always a promise, and a throw its rejection: for a caller that awaits. */
  run(input: In): Promise<Out> {
    try {
      return Promise.resolve(this.walk(input));
    } catch (error) {
      return Promise.reject(error);
    }
  }
}
