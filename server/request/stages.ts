/**
 * The pipeline's stages as values (docs/architecture.md, "One request"): each has a name and a
 * function from what the stage before it produced to what it produces, and a list of them is
 * walked in order. A list is made once per process; walking it allocates nothing of its own, and
 * a stage that answers at once costs no promise.
 */

/** One stage: its name, and what it makes of what the stage before it produced. */
export interface Stage<In, Out> {
  readonly name: string;
  readonly run: (input: In) => Out | Promise<Out>;
}

type AnyStage = Stage<never, unknown>;

/** Stages in order, each taking what the one before it returned. */
export class StageList<In, Out> {
  private constructor(private readonly stages: readonly AnyStage[]) {}

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

  /** Walks the stages from `input`; what the last returns is the list's product. */
  async run(input: In): Promise<Out> {
    let value: unknown = input;
    for (const stage of this.stages) {
      const produced = (stage.run as (input: unknown) => unknown)(value);
      value = produced instanceof Promise ? await produced : produced;
    }
    return value as Out;
  }
}
