/**
 * What a cost test bounds: the processor time this process spends while `work` runs, in
 * milliseconds. Unlike the wall clock it does not grow while a busy machine leaves the process
 * waiting for a core, so a bound on it fails when the work costs more, not when the machine is full.
 */
export async function cpuMs(work: () => unknown): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}
